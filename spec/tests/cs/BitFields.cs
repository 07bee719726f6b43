// The generated C# codec of bitfields.wire (issue 19's bit fields), held to bytes written by an
// independent reading of the wire rules: the bucket codes' unary prefix and offset buckets, the
// smallest-three quaternion's canonical rules, ascending lists in a packed body. Each refused
// input must fail with the kind, byte, bit and field path every language reports. Compiled
// with the generated Protocol.cs and its runtime and run by spec/tests/generated_cs.rs; exits
// 1 on the first failure, saying what it was.

using System;
using Ackwire.Protocol;
using Ackwire.Runtime;

static class BitFields
{
    sealed class Failure : Exception
    {
        public Failure(string message) : base(message) { }
    }

    static void Equal<T>(T want, T got, string what)
    {
        if (!Equals(want, got))
        {
            throw new Failure(what + ": want " + want + ", got " + got);
        }
    }

    static string Json_(F f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        return j.ToString();
    }

    // The frame of the good case: its bytes below were written bit by bit from the spec's
    // rules, not by this codec.
    static F Good()
    {
        return new F
        {
            Body = new Body
            {
                Changes = new[]
                {
                    new Change { Eid = 3, Turned = true, Orient = new SmallestThree(2, 12, -4, 200), Dx = -5, X = 26 / 512.0 },
                    new Change { Eid = 20, Turned = false, Dx = 273, X = -68 / 512.0 },
                },
                Ids = new byte[] { 1, 2, 65 },
                Small = new byte[] { 0, 5, 127 },
                Qs = new[] { new SmallestThree(3, 0, 0, 0), new SmallestThree(0, 3, -3, 2) },
                Big = (1UL << 39) + 8,
            },
        };
    }

    const string GoodHex = "01024919f04756c91ac0feff47f70314f40e004c4b0000000040";

    const string GoodJson = "{\"body\":{\"changes\":[{\"eid\":3,\"turned\":true,\"orient\":{\"largest\":2,\"rest\":[12,-4,200]},\"dx\":-5,\"x\":0.05078125},"
        + "{\"eid\":20,\"turned\":false,\"dx\":273,\"x\":-0.1328125}],\"ids\":[1,2,65],\"small\":[0,5,127],"
        + "\"qs\":[{\"largest\":3,\"rest\":[0,0,0]},{\"largest\":0,\"rest\":[3,-3,2]}],\"big\":549755813896}}";

    static void Encodes()
    {
        F f = Good();
        byte[] bytes = f.Encode();
        Equal(GoodHex, Json.ToHex(bytes), "encoded");
        // 8 bits of kind, 199 of body, 1 of padding.
        Equal(199L, f.Body.BitLen(), "body bits");
        Equal(bytes.Length, f.Body.PaddedLen() + 1, "predicted length");
        Equal(GoodJson, Json_(f), "JSON form");
    }

    static void Decodes()
    {
        F f = F.Decode(Json.FromHex(GoodHex));
        Equal(GoodJson, Json_(f), "decoded");
        Equal(GoodHex, Json.ToHex(F.FromJson(JsonValue.Parse(GoodJson)).Encode()), "from JSON, encoded");
    }

    static void Refused(string what, string hex, ErrorKind kind, long bit, string path)
    {
        try
        {
            F.Decode(Json.FromHex(hex));
        }
        catch (DecodeError e)
        {
            Equal(kind, e.Kind, what + " kind");
            Equal(bit, e.Bit, what + " bit");
            Equal(bit / 8, e.Offset, what + " byte");
            Equal(path, e.Path, what + " path");
            return;
        }
        throw new Failure(what + ": decoded, want " + kind);
    }

    static void DecodeRefusals()
    {
        // The dropped component (z, 200 for a component of 12 and -4) is smaller than w = 255:
        // at the quaternion's first bit.
        Refused("not the largest dropped", "01014919f0ff57c91add0f50d03b00302d010000000001",
            ErrorKind.NonCanonical, 23, "body.changes[0].orient");
        // The raw value -256 of a 9-bit component: over_width before the canonical rule.
        Refused("-2^(B-1)", "01014919000450c91add0f50d03b00302d010000000001",
            ErrorKind.OverWidth, 23, "body.changes[0].orient");
        // quat(4) (0, [7, 1, 0]): x dropped, y = 7 above it but D = 2 * 49 - 50 = 48 < 49.
        Refused("a quaternion in a list", "01024919f04756c91ac0feff47f72207e202020000000002",
            ErrorKind.NonCanonical, 131, "body.qs[0]");
        // A difference of 0 in a list ascending by value, and by a record's bucket key.
        Refused("ids not ascending", "01024919f04756c91ac0feff450628e81d0098960000000080",
            ErrorKind.NotAscending, 103, "body.ids[1]");
        Refused("eid not ascending", "01024919f04756c90230ba1fa0a07700605a020000000002",
            ErrorKind.NotAscending, 67, "body.changes[1].eid");
        // 65 then a difference of 1: past bucket(1, 6)'s largest value, 65.
        Refused("ids past the bucket's range", "01024919f04756c91ac0feffe5ef0005bd0300d3120000000010",
            ErrorKind.OverWidth, 108, "body.ids[1]");
        // Cut inside the last bucket code: truncated at the input's end.
        Refused("truncated", GoodHex.Substring(0, GoodHex.Length - 4), ErrorKind.Truncated, 8 * 24, "body.big");
        // The padding bit set.
        Refused("padding", GoodHex.Substring(0, GoodHex.Length - 2) + "c0", ErrorKind.ReservedBit, 207, "body");
    }

    static void EncodeRefused(string what, F f, ErrorKind kind, string path)
    {
        try
        {
            f.Encode();
        }
        catch (EncodeError e)
        {
            Equal(kind, e.Kind, what + " kind");
            Equal(path, e.Path, what + " path");
            return;
        }
        throw new Failure(what + ": encoded, want " + kind);
    }

    static void EncodeRefusals()
    {
        F f = Good();
        f.Body.Changes[0].Orient = new SmallestThree(2, 12, -4, 255);
        EncodeRefused("not canonical", f, ErrorKind.NonCanonical, "body.changes[0].orient");
        f = Good();
        f.Body.Changes[1].Dx = 274;
        EncodeRefused("past zbucket(2, 5, 9)", f, ErrorKind.OverWidth, "body.changes[1].dx");
        f = Good();
        f.Body.Changes[1].X = 68 / 512.0;
        EncodeRefused("a quantized value past its code", f, ErrorKind.OverWidth, "body.changes[1].x");
        f = Good();
        f.Body.Changes[1].Eid = 3;
        EncodeRefused("eid not ascending", f, ErrorKind.NotAscending, "body.changes[1].eid");
        f = Good();
        f.Body.Changes[1].Eid = 273;
        EncodeRefused("eid past its bucket", f, ErrorKind.OverWidth, "body.changes[1].eid");
        f = Good();
        f.Body.Small = new byte[] { 100, 128 };
        EncodeRefused("a u7 past its width, by a difference that fits", f, ErrorKind.OverWidth, "body.small[1]");
        f = Good();
        f.Body.Changes[1].Orient = SmallestThree.Identity;
        EncodeRefused("a quaternion given when its bit is clear", f, ErrorKind.InvalidCondition, "body.changes[1].orient");
        f = Good();
        f.Body.Big = (1UL << 40) + 8;
        EncodeRefused("past bucket(3, 40)", f, ErrorKind.OverWidth, "body.big");
    }

    static int Main()
    {
        Action[] tests = { Encodes, Decodes, DecodeRefusals, EncodeRefusals };
        foreach (Action t in tests)
        {
            try
            {
                t();
            }
            catch (Exception e)
            {
                Console.WriteLine("FAIL " + t.Method.Name + ": " + e.Message);
                return 1;
            }
        }
        Console.WriteLine("ok: " + tests.Length + " groups passed");
        return 0;
    }
}
