// The C# runtime's own tests, with a small runner of their own (no NUnit): each test is a
// method that throws on failure; Main runs them all, prints one line per failure and a total,
// and exits 1 when any failed. Run by spec/runtime/cs/test.sh.

using System;
using System.Collections.Generic;
using Ackwire.Runtime;

static class RuntimeTests
{
    sealed class Failure : Exception
    {
        public Failure(string message) : base(message) { }
    }

    static void Equal<T>(T want, T got, string what)
    {
        if (!EqualityComparer<T>.Default.Equals(want, got))
        {
            throw new Failure(what + ": want " + want + ", got " + got);
        }
    }

    static byte[] Hex(string hex)
    {
        return Json.FromHex(hex);
    }

    delegate void ReadOp(ref Reader r);

    /// Reading `hex` with `op` fails with `kind` at byte `offset`.
    static void Refused(string hex, ErrorKind kind, long offset, ReadOp op)
    {
        Reader r = new Reader(Hex(hex));
        try
        {
            op(ref r);
        }
        catch (DecodeError e)
        {
            Equal(kind, e.Kind, hex + " kind");
            Equal(offset, e.Offset, hex + " offset");
            return;
        }
        throw new Failure(hex + ": no error, want " + kind);
    }

    static void EncodeRefused(ErrorKind kind, Action op)
    {
        try
        {
            op();
        }
        catch (EncodeError e)
        {
            Equal(kind, e.Kind, "encode kind");
            return;
        }
        throw new Failure("no encode error, want " + kind);
    }

    static void Varints()
    {
        Reader r = new Reader(Hex("00 7f 8001 ffffffffffffffffff01"));
        Equal(0UL, r.Varint(64), "0");
        Equal(127UL, r.Varint(64), "127");
        Equal(128UL, r.Varint(64), "128");
        Equal(ulong.MaxValue, r.Varint(64), "2^64-1");
        r.Finish();
        // PROTOCOL.md: every varint fault at the varint's first byte.
        Refused("01 8000", ErrorKind.NonCanonicalVarint, 1, (ref Reader x) => { x.U8(); x.Varint(64); });
        Refused("808001", ErrorKind.OverWidth, 0, (ref Reader x) => x.Varint(8));
        Refused("ffffffffffffffffff02", ErrorKind.OverWidth, 0, (ref Reader x) => x.Varint(64));
        Refused("8080", ErrorKind.Truncated, 2, (ref Reader x) => x.Varint(64));
        Reader z = new Reader(Hex("00 01 02 03 feffffffffffffffff01"));
        Equal(0L, z.Zigzag(64), "zigzag 0");
        Equal(-1L, z.Zigzag(64), "zigzag -1");
        Equal(1L, z.Zigzag(64), "zigzag 1");
        Equal(-2L, z.Zigzag(64), "zigzag -2");
        Equal(long.MaxValue, z.Zigzag(64), "zigzag max");
    }

    static void Writes()
    {
        Writer w = new Writer(1);
        w.Varint(64, ulong.MaxValue);
        w.Zigzag(64, long.MinValue);
        w.U16(0x1234, true);
        w.U32(0x12345678, false);
        w.I8(-2);
        w.OptBytes(null);
        w.OptBytes(new byte[] { 0xab });
        w.Bytes(new byte[0]);
        Equal("ffffffffffffffffff01ffffffffffffffffff01" + "1234" + "78563412" + "fe" + "00" + "02ab" + "00",
            Json.ToHex(w.ToArray()), "bytes");
        Equal(10, Lengths.Varint(ulong.MaxValue), "varint len");
        Equal(1, Lengths.Varint(0), "varint len 0");
        EncodeRefused(ErrorKind.OverWidth, () => new Writer(1).Varint(21, 1UL << 21));
        EncodeRefused(ErrorKind.OverWidth, () => new Writer(1).Zigzag(8, 128));
        EncodeRefused(ErrorKind.NonFinite, () => new Writer(1).F32(float.NaN, false));
        EncodeRefused(ErrorKind.NonFinite, () => new Writer(1).F64(double.PositiveInfinity, false));
        EncodeRefused(ErrorKind.OverWidth, () => Wire.Count(256, 8));
        EncodeRefused(ErrorKind.InvalidCondition, () => Wire.Presence(true, false));
    }

    static void FixedReads()
    {
        Reader r = new Reader(Hex("3412 12345678 ff 0000807f 0000c0ff 02"));
        Equal((ushort)0x1234, r.U16(false), "u16 le");
        Equal(0x12345678U, r.U32(true), "u32 be");
        Equal((sbyte)-1, r.I8(), "i8");
        Refused("0000807f", ErrorKind.NonFinite, 0, (ref Reader x) => x.F32(false));
        Refused("0000c0ff", ErrorKind.NonFinite, 0, (ref Reader x) => x.F32(false));
        Refused("0102", ErrorKind.OverWidth, 1, (ref Reader x) => { x.Bool(); x.Bool(); });
        // PROTOCOL.md: `truncated` at the end of the input.
        Refused("010203", ErrorKind.Truncated, 3, (ref Reader x) => { x.U8(); x.U32(false); });
        Refused("00", ErrorKind.TrailingBytes, 0, (ref Reader x) => x.Finish());
        Refused("01", ErrorKind.BadConstant, 0, (ref Reader x) => x.ExpectUint(x.Offset, x.U8(), 2));
        Reader f = new Reader(Hex("0000803f"));
        Equal(1.0f, f.F32(false), "f32");
    }

    static void Counts()
    {
        // DESIGN.md section 3: a count the bytes left cannot hold is refused before anything
        // is allocated, where the elements would begin.
        Refused("05 00000000", ErrorKind.CountTooLarge, 1, (ref Reader x) => x.Count(x.U8(), 1));
        Refused("ffffffffffffffffff01", ErrorKind.CountTooLarge, 10, (ref Reader x) => x.Count(x.Varint(64), 0));
        Refused("03 aabb", ErrorKind.CountTooLarge, 1, (ref Reader x) => x.Bytes());
        Reader r = new Reader(Hex("02 aabb"));
        Equal("aabb", Json.ToHex(r.Bytes()), "bytes");
        Reader o = new Reader(Hex("00 02 cc"));
        Equal(null, o.OptBytes(), "absent");
        Equal("cc", Json.ToHex(o.OptBytes()), "present");
    }

    static void BitStreams()
    {
        BitWriter w = new BitWriter();
        w.Uint(3, 5);
        w.Int(5, -3);
        w.Bool(true);
        w.Uint(64, ulong.MaxValue);
        w.F32(1.5f);
        byte[] bytes = w.ToArray();
        Equal(14, bytes.Length, "105 bits padded to 14 bytes");
        Reader outer = new Reader(bytes);
        BitReader b = outer.BeginPacked();
        Equal(5UL, b.Uint(3), "u3");
        Equal(-3L, b.Int(5), "i5");
        Equal(true, b.Bool(), "bool");
        Equal(ulong.MaxValue, b.Uint(64), "u64");
        Equal(1.5f, b.F32(), "f32");
        outer.EndPacked(ref b);
        outer.Finish();
        EncodeRefused(ErrorKind.OverWidth, () => new BitWriter().Uint(7, 128));
        EncodeRefused(ErrorKind.OverWidth, () => new BitWriter().Int(5, 16));
        // A padding bit set: reserved_bit at its bit.
        Reader p = new Reader(Hex("09"));
        BitReader pb = p.BeginPacked();
        pb.Uint(3);
        try
        {
            p.EndPacked(ref pb);
            throw new Failure("padding not checked");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.ReservedBit, e.Kind, "padding kind");
            Equal(3L, e.Bit, "padding bit");
        }
        Reader t = new Reader(Hex("ff"));
        BitReader tb = t.BeginPacked();
        try
        {
            tb.Uint(9);
            throw new Failure("truncation not checked");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.Truncated, e.Kind, "truncated kind");
            Equal(8L, e.Bit, "truncated at the input's end");
        }
    }

    static void Quantization()
    {
        // wire = round(value ÷ scale), halves away from zero, a non-finite value as 0.
        Equal(3UL, Quant.Uint(2.5, 1.0, 255), "2.5");
        Equal(-3L, Quant.Int(-2.5, 1.0, -128, 127), "-2.5");
        Equal(0UL, Quant.Uint(double.NaN, 1.0, 255), "NaN");
        Equal(45UL, Quant.Uint(1.0, 1.0 / 45.0, 255), "scaled");
        EncodeRefused(ErrorKind.OverWidth, () => Quant.Uint(256.0, 1.0, 255));
        EncodeRefused(ErrorKind.OverWidth, () => Quant.Uint(-1.0, 1.0, 255));
        EncodeRefused(ErrorKind.OverWidth, () => Quant.Int(1e300, 1.0, long.MinValue, long.MaxValue));
        EncodeRefused(ErrorKind.OverWidth, () => Quant.Uint(1.8446744073709552E19, 1.0, ulong.MaxValue));
    }

    static void AscendingKeys()
    {
        Ascending a = new Ascending(8);
        Equal(5UL, a.Delta(5), "first absolute");
        Equal(2UL, a.Delta(7), "then the difference");
        Ascending same = new Ascending(8);
        same.Delta(5);
        EncodeRefused(ErrorKind.NotAscending, () => same.Delta(5));
        Reader r = new Reader(Hex("05 00"));
        Ascending d = new Ascending(8);
        Equal(5UL, d.Next(ref r, r.Offset, r.U8()), "read first");
        try
        {
            d.Next(ref r, r.Offset, r.U8());
            throw new Failure("a difference of 0 was accepted");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.NotAscending, e.Kind, "not ascending");
            Equal(1L, e.Offset, "at the element");
        }
        Reader over = new Reader(Hex("ff 01"));
        Ascending o = new Ascending(8);
        o.Next(ref over, over.Offset, over.U8());
        try
        {
            o.Next(ref over, over.Offset, over.U8());
            throw new Failure("a sum past the width was accepted");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.OverWidth, e.Kind, "over width");
        }
    }

    static void Paths()
    {
        DecodeError e = new DecodeError(ErrorKind.Truncated, 4, -1);
        e.Within("mask").Within(3).Within("changes");
        Equal("changes[3].mask", e.Path, "path");
        Equal("truncated at byte 4, field changes[3].mask", e.Message, "message");
        EncodeError w = new EncodeError(ErrorKind.OverWidth);
        w.Within(0).Within(1).Within("nested");
        Equal("nested[1][0]", w.Path, "nested path");
    }

    static void JsonForm()
    {
        JsonValue v = JsonValue.Parse("{\"a\": [1, -0.0, \"18446744073709551615\", true, null], \"b\": \"x\\u0041\"}");
        List<JsonValue> a = Json.Array(Json.Member(v, "a"));
        Equal(1UL, Json.Uint(a[0], 255), "number");
        Equal(true, BitConverter.DoubleToInt64Bits(Json.Float(a[1])) < 0, "-0.0 keeps its sign");
        Equal(ulong.MaxValue, Json.BigUint(a[2], ulong.MaxValue), "decimal string");
        Equal(true, Json.Bool(a[3]), "bool");
        Equal(null, Json.Optional(v, "missing"), "absent");
        Equal("xA", Json.Member(v, "b").Text, "escape");
        JsonWriter j = new JsonWriter();
        j.BeginObject();
        j.Name("big");
        j.BigUint(9007199254740992);
        j.Name("safe");
        j.BigUint(9007199254740991);
        j.Name("neg");
        j.BigInt(-9007199254740992);
        j.Name("plain");
        j.Uint(9007199254740992);
        j.Name("f");
        j.Float(-0.0);
        j.Name("g");
        j.Float(0.1f);
        j.Name("h");
        j.Hex(new byte[] { 0xde, 0xad });
        j.EndObject();
        Equal("{\"big\":\"9007199254740992\",\"safe\":9007199254740991,\"neg\":\"-9007199254740992\",\"plain\":9007199254740992,\"f\":-0.0,\"g\":0.10000000149011612,\"h\":\"dead\"}",
            j.ToString(), "written");
        bool refused = false;
        try
        {
            Json.Uint(JsonValue.Parse("256"), 255);
        }
        catch (JsonError)
        {
            refused = true;
        }
        Equal(true, refused, "past the type's range");
        refused = false;
        try
        {
            Json.Uint(JsonValue.Parse("\"5\""), 255);
        }
        catch (JsonError)
        {
            refused = true;
        }
        Equal(true, refused, "a string where only a number is read");
        // A hostile document cannot nest without bound.
        refused = false;
        try
        {
            JsonValue.Parse(new string('[', 10000));
        }
        catch (JsonError)
        {
            refused = true;
        }
        Equal(true, refused, "nesting limit");
        Equal(null, Json.FromHex("abc"), "odd hex");
        Equal("0aff", Json.ToHex(Json.FromHex("0A FF")), "hex with spaces");
    }

    static int Main()
    {
        List<KeyValuePair<string, Action>> tests = new List<KeyValuePair<string, Action>>
        {
            new KeyValuePair<string, Action>("varints", Varints),
            new KeyValuePair<string, Action>("writes", Writes),
            new KeyValuePair<string, Action>("fixed_reads", FixedReads),
            new KeyValuePair<string, Action>("counts", Counts),
            new KeyValuePair<string, Action>("bit_streams", BitStreams),
            new KeyValuePair<string, Action>("quantization", Quantization),
            new KeyValuePair<string, Action>("ascending_keys", AscendingKeys),
            new KeyValuePair<string, Action>("paths", Paths),
            new KeyValuePair<string, Action>("json_form", JsonForm),
        };
        // The other files of test/ (the session machines' tests) each hold a static class with
        // a static `Tests` list: found here, so that a new file needs no line in this one.
        foreach (Type t in typeof(RuntimeTests).Assembly.GetTypes())
        {
            System.Reflection.FieldInfo f = t.GetField("Tests",
                System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic);
            if (t != typeof(RuntimeTests) && f != null && f.FieldType == typeof(KeyValuePair<string, Action>[]))
            {
                tests.AddRange((KeyValuePair<string, Action>[])f.GetValue(null));
            }
        }
        int failed = 0;
        foreach (KeyValuePair<string, Action> t in tests)
        {
            try
            {
                t.Value();
                Console.WriteLine("ok   " + t.Key);
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine("FAIL " + t.Key + ": " + e.Message);
            }
        }
        Console.WriteLine((tests.Count - failed) + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
