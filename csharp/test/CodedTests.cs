// Tests of Coded.cs, the coded values of kind 13's body, held to the Rust runtime's cases,
// vectors/coder/coded_cases.txt (written from rt/src/coded.rs; test.sh names the folder in
// $ACKWIRE_VECTORS_DIR). Then what the cases leave to the API: the model's slots against the
// spec's layout spelt out bit by bit, the floor, extrapolation's rounding and saturation, zigzag,
// seeded round trips (decoding allocating nothing), the floor's padding, and hostile bodies
// (refused with an offset inside them, or the one body the encoder writes for what was read).
// The same checks as the C++ runtime's cpp/test/coded_test.cpp. Found by RuntimeTests.Main
// through the `Tests` list.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using Ackwire.Runtime;
using static Harness;

static class CodedTests
{
    /// <summary>This file's tests, run by RuntimeTests.Main.</summary>
    public static readonly KeyValuePair<string, Action>[] Tests =
    {
        new KeyValuePair<string, Action>("coded_cases", Cases),
        new KeyValuePair<string, Action>("coded_model_slots_are_the_spec_layout", ModelSlots),
        new KeyValuePair<string, Action>("coded_bits_go_where_the_spec_says", SpecLayout),
        new KeyValuePair<string, Action>("coded_floor_len", FloorLen),
        new KeyValuePair<string, Action>("coded_extrapolate_rounds_halves_away_and_saturates", Extrapolate),
        new KeyValuePair<string, Action>("coded_zigzag", Zigzag),
        new KeyValuePair<string, Action>("coded_value_over_its_width_or_past_the_tables", EncodeRefusals),
        new KeyValuePair<string, Action>("coded_round_trips_allocate_nothing_decoding", RoundTrips),
        new KeyValuePair<string, Action>("coded_floor_padding", FloorPadding),
        new KeyValuePair<string, Action>("coded_head_refusals", HeadRefusals),
        new KeyValuePair<string, Action>("coded_length_over_the_width", LengthOverWidth),
        new KeyValuePair<string, Action>("coded_hostile_bodies", Hostile),
        new KeyValuePair<string, Action>("coded_slot_counts", Counts),
    };

    /// <summary>One value of a body, as the cases write it: <c>uAT:W=V</c> the unsigned V under
    /// the model of W bits whose slots start at AT, <c>iAT:W=V</c> the signed V (its bits in
    /// <c>Value</c>), coded as its zigzag code.</summary>
    struct Op
    {
        public bool Signed;
        public int At;
        public byte W;
        public ulong Value;

        public override string ToString()
        {
            string v = Signed ? unchecked((long)Value).ToString(CultureInfo.InvariantCulture)
                : Value.ToString(CultureInfo.InvariantCulture);
            return (Signed ? "i" : "u") + At.ToString(CultureInfo.InvariantCulture) + ":" + W + "=" + v;
        }

        /// <summary>The value into <paramref name="sink"/>.</summary>
        public void Put(CodedSink sink)
        {
            if (Signed)
            {
                sink.Signed(At, W, unchecked((long)Value));
            }
            else
            {
                sink.Value(At, W, Value);
            }
        }

        public static Op Parse(string text)
        {
            int eq = text.IndexOf('=');
            string head = eq < 0 ? text : text.Substring(0, eq);
            string[] aw = head.Substring(1).Split(':');
            bool signed = head[0] == 'i';
            True(signed || head[0] == 'u', "a value of kind u or i: " + text);
            ulong v = 0;
            if (eq >= 0)
            {
                string digits = text.Substring(eq + 1);
                v = signed ? unchecked((ulong)long.Parse(digits, CultureInfo.InvariantCulture))
                    : ulong.Parse(digits, CultureInfo.InvariantCulture);
            }
            return new Op
            {
                Signed = signed,
                At = int.Parse(aw[0], CultureInfo.InvariantCulture),
                W = byte.Parse(aw[1], CultureInfo.InvariantCulture),
                Value = v,
            };
        }
    }

    static Op[] ParseList(string text)
    {
        return text == "-" ? new Op[0] : Array.ConvertAll(text.Split(','), Op.Parse);
    }

    /// <summary>A case's tables: <c>SLOTS:P</c> every slot at P, then <c>,S=P</c> for each slot
    /// listed at another.</summary>
    static Prob[] ParseTable(string text)
    {
        string[] parts = text.Split(',');
        string[] head = parts[0].Split(':');
        int flat = int.Parse(head[1], CultureInfo.InvariantCulture);
        Prob[] t = Table(int.Parse(head[0], CultureInfo.InvariantCulture), i => flat);
        for (int i = 1; i < parts.Length; i++)
        {
            string[] sp = parts[i].Split('=');
            t[int.Parse(sp[0], CultureInfo.InvariantCulture)] = Prob.Of(int.Parse(sp[1], CultureInfo.InvariantCulture)).Value;
        }
        return t;
    }

    static Prob[] Table(int slots, Func<int, int> p)
    {
        Prob[] t = new Prob[slots];
        for (int i = 0; i < slots; i++)
        {
            t[i] = Prob.Of(p(i)).Value;
        }
        return t;
    }

    static string Hex(byte[] bytes)
    {
        return BitConverter.ToString(bytes).Replace("-", "").ToLowerInvariant();
    }

    static byte[] Unhex(string text)
    {
        if (text == "-")
        {
            return new byte[0];
        }
        byte[] out_ = new byte[text.Length / 2];
        for (int i = 0; i < out_.Length; i++)
        {
            out_[i] = byte.Parse(text.Substring(2 * i, 2), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
        }
        return out_;
    }

    /// <summary>The body (<c>u16 coded_len</c> and the stream) of <paramref name="ops"/>,
    /// coded under a copy of <paramref name="tables"/>.</summary>
    static byte[] Encode(Prob[] tables, Op[] ops, int changedCount)
    {
        CodedEncoder e = new CodedEncoder((Prob[])tables.Clone());
        foreach (Op op in ops)
        {
            op.Put(e);
        }
        Writer w = new Writer(16);
        e.Finish(changedCount, w);
        return w.ToArray();
    }

    /// <summary>Reads the values of <paramref name="shape"/> into <paramref name="back"/> from
    /// the body at byte <paramref name="offset"/> of <paramref name="frame"/>, under
    /// <paramref name="probs"/> (which adapt), then finishes it: allocates nothing but what a
    /// fault throws. Returns the offset after the body.</summary>
    static int DecodeInto(Prob[] probs, Op[] shape, byte[] frame, int offset, int changedCount, Op[] back)
    {
        Reader r = new Reader(frame, offset);
        CodedDecoder d = new CodedDecoder(ref r, changedCount, probs);
        for (int i = 0; i < shape.Length; i++)
        {
            back[i].Value = shape[i].Signed
                ? unchecked((ulong)d.Signed(shape[i].At, shape[i].W))
                : d.Value(shape[i].At, shape[i].W);
        }
        d.Finish();
        return r.Offset;
    }

    static Op[] Decode(Prob[] tables, Op[] shape, byte[] body, int changedCount)
    {
        Op[] back = (Op[])shape.Clone();
        Equal(body.Length, DecodeInto((Prob[])tables.Clone(), shape, body, 0, changedCount, back), "the body's end");
        return back;
    }

    static DecodeError Refused(Action decode, string what)
    {
        try
        {
            decode();
        }
        catch (DecodeError e)
        {
            return e;
        }
        throw new Failure(what + ": not refused");
    }

    static void Cases()
    {
        string dir = Environment.GetEnvironmentVariable("ACKWIRE_VECTORS_DIR");
        True(!string.IsNullOrEmpty(dir), "ACKWIRE_VECTORS_DIR names the repository's vectors/ (test.sh sets it)");
        int[] seen = new int[4];
        foreach (string line in File.ReadAllLines(Path.Combine(dir, "coder", "coded_cases.txt")))
        {
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }
            string[] f = line.Split(' ');
            string name = f[1];
            switch (f[0])
            {
                case "ok":
                {
                    int count = int.Parse(f[2], CultureInfo.InvariantCulture);
                    Prob[] tables = ParseTable(f[3]);
                    Op[] ops = ParseList(f[4]);
                    byte[] bytes = Unhex(f[5]);
                    Equal(f[5] == "-" ? "" : f[5], Hex(Encode(tables, ops, count)), name + ": the body");
                    Op[] back = (Op[])ops.Clone();
                    Reader r = DecodeWhole((Prob[])tables.Clone(), ops, bytes, count, back);
                    r.Finish();
                    for (int i = 0; i < ops.Length; i++)
                    {
                        Equal(ops[i].ToString(), back[i].ToString(), name + ": value " + i);
                    }
                    // Again from the tables: decoding allocates nothing.
                    Prob[] again = (Prob[])tables.Clone();
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    DecodeWhole(again, ops, bytes, count, back);
                    Equal(0L, GC.GetAllocatedBytesForCurrentThread() - before, name + ": bytes allocated decoding");
                    seen[0]++;
                    break;
                }
                case "err":
                {
                    int count = int.Parse(f[2], CultureInfo.InvariantCulture);
                    Prob[] tables = ParseTable(f[3]);
                    Op[] shape = ParseList(f[4]);
                    byte[] bytes = Unhex(f[5]);
                    DecodeError e = Refused(() =>
                    {
                        Reader r = DecodeWhole((Prob[])tables.Clone(), shape, bytes, count, (Op[])shape.Clone());
                        r.Finish();
                    }, name);
                    Equal(f[6], Errors.KindName(e.Kind), name + ": the kind");
                    Equal(long.Parse(f[7], CultureInfo.InvariantCulture), e.Offset, name + ": the offset");
                    Equal(-1L, e.Bit, name + ": no bit offset");
                    seen[1]++;
                    break;
                }
                case "train":
                {
                    SlotCounts counts = new SlotCounts(int.Parse(f[2], CultureInfo.InvariantCulture));
                    foreach (Op op in ParseList(f[3]))
                    {
                        op.Put(counts);
                    }
                    string[] probs = Array.ConvertAll(counts.Probs(), p => p.Get().ToString(CultureInfo.InvariantCulture));
                    Equal(f[4], probs.Length == 0 ? "-" : string.Join(",", probs), name + ": the trained tables");
                    seen[2]++;
                    break;
                }
                case "extrapolate":
                {
                    long r = Coded.Extrapolate(long.Parse(f[2], CultureInfo.InvariantCulture),
                        uint.Parse(f[3], CultureInfo.InvariantCulture), uint.Parse(f[4], CultureInfo.InvariantCulture));
                    Equal(f[5], r.ToString(CultureInfo.InvariantCulture), name);
                    seen[3]++;
                    break;
                }
                default:
                    throw new Failure("a line of kind " + f[0]);
            }
        }
        True(seen[0] >= 25 && seen[1] >= 15 && seen[2] >= 3 && seen[3] >= 10,
            "cases: " + string.Join(", ", Array.ConvertAll(seen, n => n.ToString(CultureInfo.InvariantCulture))));
    }

    /// <summary>The values of <paramref name="shape"/> read into <paramref name="back"/> from
    /// <paramref name="bytes"/>, the whole input, under <paramref name="probs"/>, the body then
    /// finished: the reader, where the body ends.</summary>
    static Reader DecodeWhole(Prob[] probs, Op[] shape, byte[] bytes, int changedCount, Op[] back)
    {
        Reader r = new Reader(bytes);
        CodedDecoder d = new CodedDecoder(ref r, changedCount, probs);
        for (int i = 0; i < shape.Length; i++)
        {
            back[i].Value = shape[i].Signed
                ? unchecked((ulong)d.Signed(shape[i].At, shape[i].W))
                : d.Value(shape[i].At, shape[i].W);
        }
        d.Finish();
        return r;
    }

    /// <summary>The spec's layout of a model of <paramref name="w"/> bits, slot by slot (CODE-8):
    /// the length tree's nodes, then each length's tree and position slots, as names.</summary>
    static List<string> Layout(int w)
    {
        int k = 0;
        while ((w >> k) != 0)
        {
            k++;
        }
        List<string> slots = new List<string>();
        for (int node = 1; node < 1 << k; node++)
        {
            slots.Add("len" + node);
        }
        for (int l = 2; l <= w; l++)
        {
            int t = Math.Min(l - 1, 3);
            for (int node = 1; node < 1 << t; node++)
            {
                slots.Add("L" + l + ".tree" + node);
            }
            for (int j = 0; j < l - 1 - t; j++)
            {
                slots.Add("L" + l + ".pos" + j);
            }
        }
        return slots;
    }

    static void ModelSlots()
    {
        for (int w = 0; w <= 64; w++)
        {
            Equal(Layout(w).Count, Coded.ModelSlots((byte)w), "slots of W = " + w);
        }
        Equal(0, Coded.ModelSlots(0), "W = 0 codes nothing");
        Equal(1, Coded.ModelSlots(1), "W = 1: one length bit");
        Equal(4, Coded.ModelSlots(2), "W = 2");
        Equal(2388, Coded.ModelSlots(64), "W = 64");
    }

    /// <summary>The (slot, bit) pairs coding <paramref name="v"/> as the spec says, bit by bit,
    /// with the spec's layout looked up by name: what CodedEncoder codes.</summary>
    static List<int[]> SpecBits(int at, int w, ulong v)
    {
        List<string> layout = Layout(w);
        List<int[]> bits = new List<int[]>();
        int k = 0;
        while ((w >> k) != 0)
        {
            k++;
        }
        int l = 0;
        while (l < 64 && (v >> l) != 0)
        {
            l++;
        }
        int m = 1;
        for (int i = k - 1; i >= 0; i--)
        {
            int b = l >> i & 1;
            bits.Add(new[] { at + layout.IndexOf("len" + m), b });
            m = 2 * m + b;
        }
        if (l < 2)
        {
            return bits;
        }
        int t = Math.Min(l - 1, 3);
        m = 1;
        // The L - 1 bits below the highest one bit, most significant first.
        for (int i = 0; i < l - 1; i++)
        {
            int b = (int)(v >> (l - 2 - i) & 1);
            string slot = i < t ? "L" + l + ".tree" + m : "L" + l + ".pos" + (i - t);
            bits.Add(new[] { at + layout.IndexOf(slot), b });
            m = 2 * m + b;
        }
        return bits;
    }

    static void SpecLayout()
    {
        Rng rng = new Rng(0xC0DED0C0DEUL);
        for (int n = 0; n < 60; n++)
        {
            int count = 1 + rng.Below(12);
            Op[] ops = new Op[count];
            int slots = 3;
            for (int i = 0; i < count; i++)
            {
                byte w = (byte)rng.Below(65);
                int l = rng.Below(w + 1);
                ulong v = l == 0 ? 0 : (1UL << (l - 1)) | (rng.Next() & ((1UL << (l - 1)) - 1));
                ops[i] = new Op { At = slots, W = w, Value = v };
                slots += Coded.ModelSlots(w) + rng.Below(3);
            }
            Prob[] tables = Table(slots, i => 1 + (i * 977 + n * 131) % 4095);
            RangeEncoder spec = new RangeEncoder();
            Prob[] specProbs = (Prob[])tables.Clone();
            foreach (Op op in ops)
            {
                foreach (int[] sb in SpecBits(op.At, op.W, op.Value))
                {
                    spec.Bit(ref specProbs[sb[0]], sb[1] == 1);
                }
            }
            byte[] stream = spec.Finish();
            byte[] body = Encode(tables, ops, 0);
            Equal(Hex(stream), Hex(body).Substring(4), "case " + n + ": the stream");
            Equal(stream.Length, body[0] | body[1] << 8, "case " + n + ": coded_len");
        }
    }

    static void FloorLen()
    {
        Equal(12, Coded.CodedFloorBits, "bits a change");
        int[][] cases = { new[] { 0, 0 }, new[] { 1, 2 }, new[] { 2, 3 }, new[] { 3, 5 }, new[] { 4, 6 },
            new[] { 5, 8 }, new[] { 8, 12 }, new[] { 43690, 65535 }, new[] { 43691, 65537 },
            new[] { 65535, 98303 }, new[] { int.MaxValue, int.MaxValue } };
        foreach (int[] c in cases)
        {
            Equal(c[1], Coded.FloorLen(c[0]), "floor of " + c[0]);
        }
    }

    static void Extrapolate()
    {
        long[][] cases =
        {
            // v, num, den, want
            new long[] { 0, 5, 3, 0 },
            new long[] { 10, 1, 1, 10 },
            new long[] { 10, 3, 2, 15 },
            new long[] { 5, 1, 2, 3 },
            new long[] { -5, 1, 2, -3 },
            new long[] { 7, 1, 2, 4 },
            new long[] { -7, 1, 2, -4 },
            new long[] { 4, 1, 3, 1 },
            new long[] { 5, 1, 3, 2 },
            new long[] { -4, 1, 3, -1 },
            new long[] { -5, 1, 3, -2 },
            new long[] { 1, 1, 2, 1 },
            new long[] { -1, 1, 2, -1 },
            new long[] { 1, 1, 3, 0 },
            new long[] { 100, 0, 7, 0 },
            new long[] { 9, 2, 0, 18 },
            new long[] { -3, 65535, 255, -771 },
            new long[] { 1L << 40, 65535, 1, 72056494526300160 },
            new long[] { long.MaxValue, 2, 1, long.MaxValue },
            new long[] { long.MinValue, 2, 1, long.MinValue },
            new long[] { long.MinValue, 1, 1, long.MinValue },
            new long[] { long.MaxValue, 1, 1, long.MaxValue },
            new long[] { long.MinValue, 1, 2, long.MinValue / 2 },
            new long[] { long.MaxValue, 1, 2, 1L << 62 },
            new long[] { long.MaxValue, uint.MaxValue, uint.MaxValue, long.MaxValue },
            new long[] { long.MinValue, uint.MaxValue, uint.MaxValue, long.MinValue },
            new long[] { long.MaxValue, 3, 4, 6917529027641081855 },
            new long[] { -(1L << 62), 3, 2, -3 * (1L << 61) },
            new long[] { 1L << 62, 3, 2, 3 * (1L << 61) },
            new long[] { -(1L << 62), 2, 1, long.MinValue },
            new long[] { 1L << 62, 2, 1, long.MaxValue },
            new long[] { -(1L << 62), 3, 1, long.MinValue },
            new long[] { 1L << 62, 3, 1, long.MaxValue },
        };
        foreach (long[] c in cases)
        {
            Equal(c[3], Coded.Extrapolate(c[0], (uint)c[1], (uint)c[2]), c[0] + " x " + c[1] + " / " + c[2]);
        }
        // Against exact rationals, where they fit a double's integers.
        Rng rng = new Rng(77);
        for (int n = 0; n < 2000; n++)
        {
            long v = (long)(rng.Next() % 2000001) - 1000000;
            uint num = (uint)rng.Below(65536);
            uint den = 1 + (uint)rng.Below(255);
            long p = v * num;
            long q = Math.Abs(p) / den;
            long r = Math.Abs(p) % den;
            long want = (q + (2 * r >= den ? 1 : 0)) * Math.Sign(p);
            Equal(want, Coded.Extrapolate(v, num, den), v + " x " + num + " / " + den);
        }
    }

    static void Zigzag()
    {
        Equal(0UL, Coded.Zigzag(0), "0");
        Equal(1UL, Coded.Zigzag(-1), "-1");
        Equal(2UL, Coded.Zigzag(1), "1");
        Equal(ulong.MaxValue, Coded.Zigzag(long.MinValue), "min");
        Equal(ulong.MaxValue - 1, Coded.Zigzag(long.MaxValue), "max");
        foreach (long v in new[] { 0L, 1, -1, 63, -64, long.MaxValue, long.MinValue, 123456789, -987654321 })
        {
            Equal(v, Coded.Unzigzag(Coded.Zigzag(v)), "round trip of " + v);
        }
    }

    static void EncodeRefusal(Action encode, string what)
    {
        try
        {
            encode();
        }
        catch (EncodeError e)
        {
            Equal(ErrorKind.OverWidth, e.Kind, what);
            return;
        }
        throw new Failure(what + ": not refused");
    }

    static void EncodeRefusals()
    {
        Prob[] tables = Table(Coded.ModelSlots(64) + 10, i => 2048);
        CodedEncoder e = new CodedEncoder(tables);
        EncodeRefusal(() => e.Value(0, 3, 8), "8 in 3 bits");
        EncodeRefusal(() => e.Value(0, 0, 1), "1 in 0 bits");
        EncodeRefusal(() => e.Value(0, 65, 0), "a width of 65");
        EncodeRefusal(() => e.Signed(0, 3, 4), "4 as zigzag 8 in 3 bits");
        EncodeRefusal(() => e.Signed(0, 3, -5), "-5 as zigzag 9 in 3 bits");
        EncodeRefusal(() => e.Value(11, 64, 0), "a model past the tables");
        EncodeRefusal(() => e.Value(-1, 1, 0), "a model before the tables");
        EncodeRefusal(() => e.Value(int.MaxValue, 1, 0), "a model far past the tables");
        // Nothing refused was coded: the encoder goes on as if none had been tried.
        e.Value(10, 64, ulong.MaxValue);
        e.Signed(0, 3, -4);
        e.Value(0, 0, 0);
        Writer w = new Writer(4);
        e.Finish(0, w);
        Equal(Hex(Encode(Table(tables.Length, i => 2048),
            new[] { new Op { At = 10, W = 64, Value = ulong.MaxValue }, new Op { At = 0, W = 3, Value = 7 } }, 0)),
            Hex(w.ToArray()), "the body without the refused values");
        // A body longer than a u16 counts.
        CodedEncoder big = new CodedEncoder(Table(1, i => 2048));
        Writer full = new Writer(4);
        full.U8(0xAA);
        try
        {
            big.Finish(43691, full);
            throw new Failure("a floor of 65537 bytes");
        }
        catch (EncodeError err)
        {
            Equal(ErrorKind.CountTooLarge, err.Kind, "a floor over a u16");
        }
        Equal("aa", Hex(full.ToArray()), "nothing written");
        Writer edge = new Writer(4);
        new CodedEncoder(Table(1, i => 2048)).Finish(43690, edge);
        Equal(65537, edge.Length, "a floor of 65535 bytes");
        Equal(0xFFFF, edge.ToArray()[0] | edge.ToArray()[1] << 8, "coded_len at the most");
    }

    /// <summary>A random body: values under random models of a random table, some signed.</summary>
    static Op[] RandomOps(Rng rng, int count, out Prob[] tables)
    {
        Op[] ops = new Op[count];
        int models = 1 + rng.Below(5);
        byte[] widths = new byte[models];
        int[] starts = new int[models];
        int slots = 0;
        for (int m = 0; m < models; m++)
        {
            widths[m] = (byte)(rng.Below(4) == 0 ? rng.Below(65) : rng.Below(17));
            starts[m] = slots;
            slots += Coded.ModelSlots(widths[m]);
        }
        int skew = rng.Below(3);
        tables = Table(Math.Max(slots, 1), i => skew == 0 ? 2048 : 1 + (int)((ulong)(i * 2654435761L) % 4095));
        for (int i = 0; i < count; i++)
        {
            int m = rng.Below(models);
            byte w = widths[m];
            // Mostly small values, as predicted ones are, sometimes any of the width.
            int l = rng.Below(3) == 0 ? rng.Below(w + 1) : Math.Min(w, rng.Below(4));
            ulong v = l == 0 ? 0 : (1UL << (l - 1)) | (rng.Next() & ((1UL << (l - 1)) - 1));
            bool signed = rng.Below(2) == 0;
            ops[i] = new Op { Signed = signed, At = starts[m], W = w, Value = signed ? unchecked((ulong)Coded.Unzigzag(v)) : v };
        }
        return ops;
    }

    static void RoundTrips()
    {
        Rng rng = new Rng(0x5EED);
        for (int n = 0; n < 300; n++)
        {
            Prob[] tables;
            Op[] ops = RandomOps(rng, rng.Below(30), out tables);
            int changed = rng.Below(3) == 0 ? rng.Below(ops.Length + 1) * 4 : rng.Below(ops.Length + 1);
            byte[] body = Encode(tables, ops, changed);
            int codedLen = body[0] | body[1] << 8;
            Equal(body.Length - 2, codedLen, "case " + n + ": coded_len");
            True(codedLen >= Coded.FloorLen(changed), "case " + n + ": at least the floor");
            // Inside a frame: three bytes before, the next field after.
            byte[] frame = new byte[body.Length + 4];
            Array.Copy(body, 0, frame, 3, body.Length);
            Op[] back = (Op[])ops.Clone();
            Prob[] probs = (Prob[])tables.Clone();
            Equal(3 + body.Length, DecodeInto(probs, ops, frame, 3, changed, back), "case " + n + ": the body's end");
            for (int i = 0; i < ops.Length; i++)
            {
                Equal(ops[i].ToString(), back[i].ToString(), "case " + n + ", value " + i);
            }
            // Again from the tables: no allocation.
            Prob[] again = (Prob[])tables.Clone();
            long before = GC.GetAllocatedBytesForCurrentThread();
            DecodeInto(again, ops, frame, 3, changed, back);
            Equal(0L, GC.GetAllocatedBytesForCurrentThread() - before, "case " + n + ": bytes allocated decoding");
            // The tables adapted the same way on both sides: the caller's copy is what moved.
            Prob[] encProbs = (Prob[])tables.Clone();
            CodedEncoder e = new CodedEncoder(encProbs);
            foreach (Op op in ops)
            {
                op.Put(e);
            }
            for (int i = 0; i < tables.Length; i++)
            {
                Equal(encProbs[i], again[i], "case " + n + ": slot " + i + " adapted alike");
            }
        }
    }

    static void FloorPadding()
    {
        Prob[] tables = Table(Coded.ModelSlots(8), i => 2048);
        Op[] ops = { new Op { At = 0, W = 8, Value = 200 }, new Op { At = 0, W = 8, Value = 3 } };
        byte[] bare = Encode(tables, ops, 0);
        int streamLen = bare.Length - 2;
        True(streamLen > 0, "a stream of some bytes");
        // A count whose floor is past the stream: zeros pad it, and the decoder takes them.
        int changed = (streamLen + 6) * 8 / 12;
        int floor = Coded.FloorLen(changed);
        True(floor > streamLen + 4, "the floor is past the implicit zeros");
        byte[] padded = Encode(tables, ops, changed);
        Equal(floor + 2, padded.Length, "padded to the floor");
        Equal(Hex(bare).Substring(4), Hex(padded).Substring(4, 2 * streamLen), "the same stream");
        for (int i = 2 + streamLen; i < padded.Length; i++)
        {
            Equal((byte)0, padded[i], "padding byte " + i);
        }
        Decode(tables, ops, padded, changed);
        // A padding byte that is not 0, where the decoder did not reach.
        byte[] dirty = (byte[])padded.Clone();
        dirty[padded.Length - 1] = 1;
        DecodeError e = Refused(() => Decode(tables, ops, dirty, changed), "a padding byte of 1");
        Equal(ErrorKind.TrailingBytes, e.Kind, "a padding byte of 1");
        Equal((long)padded.Length - 1, e.Offset, "at it");
        // The same bytes, counted above the floor: the stream's own rules, which refuse zeros
        // the encoder drops.
        e = Refused(() => Decode(tables, ops, padded, changed - 1), "padding above the floor");
        True(e.Kind == ErrorKind.TrailingBytes || e.Kind == ErrorKind.NonCanonical, "padding above the floor: " + e.Message);
        // A count whose floor is past coded_len.
        e = Refused(() => Decode(tables, ops, padded, changed + 1), "under the floor");
        Equal(ErrorKind.CountTooLarge, e.Kind, "under the floor");
        Equal(0L, e.Offset, "at coded_len");
        // Every byte of the floor a zero, read as values that need more: refused or read, never
        // past the floor's end plus its four implicit zeros.
        byte[] zeros = new byte[2 + 12];
        zeros[0] = 12;
        Op[] many = new Op[8];
        for (int i = 0; i < many.Length; i++)
        {
            many[i] = new Op { At = 0, W = 8 };
        }
        Op[] read = Decode(tables, many, zeros, 8);
        Equal(Hex(zeros), Hex(Encode(tables, read, 8)), "all zeros: the body of what was read");
    }

    static void HeadRefusals()
    {
        Prob[] tables = Table(4, i => 2048);
        // coded_len cut short.
        DecodeError e = Refused(() => Decode(tables, new Op[0], new byte[] { 5 }, 0), "one byte");
        Equal(ErrorKind.Truncated, e.Kind, "one byte of coded_len");
        Equal(1L, e.Offset, "at the end");
        // More than the frame holds: truncated at its end, after the floor is checked.
        e = Refused(() => Decode(tables, new Op[0], new byte[] { 5, 0, 1, 2 }, 0), "five of two bytes");
        Equal(ErrorKind.Truncated, e.Kind, "five of two bytes");
        Equal(4L, e.Offset, "at the end");
        e = Refused(() => Decode(tables, new Op[0], new byte[] { 0, 0 }, 1), "under the floor");
        Equal(ErrorKind.CountTooLarge, e.Kind, "a change in no bytes");
        // The floor refuses before the length is taken: a frame that also ends early.
        byte[] frame = { 9, 9, 1, 0, 7 };
        Reader r = new Reader(frame, 2);
        try
        {
            new CodedDecoder(ref r, 2, tables);
            throw new Failure("1 byte for 2 changes");
        }
        catch (DecodeError err)
        {
            Equal(ErrorKind.CountTooLarge, err.Kind, "1 byte for 2 changes");
            Equal(2L, err.Offset, "at coded_len, within the frame");
        }
    }

    static void LengthOverWidth()
    {
        // W = 5 and W = 7 share their length tree (k = 3): a length of 7 coded under W = 7 is
        // read under W = 5 as a length over the width.
        Prob[] tables = Table(Coded.ModelSlots(7), i => 2048);
        byte[] body = Encode(tables, new[] { new Op { At = 0, W = 7, Value = 100 } }, 1);
        DecodeError e = Refused(() => Decode(tables, new[] { new Op { At = 0, W = 5 } }, body, 1), "L = 7 in W = 5");
        Equal(ErrorKind.OverWidth, e.Kind, "L = 7 in W = 5");
        True(e.Offset >= 2 && e.Offset <= body.Length, "inside the stream: " + e.Offset);
        Equal(-1L, e.Bit, "no bit offset");
        // A model past the tables is refused before a bit is read.
        byte[] frame = { 2, 0, 0x80, 0x00 };
        Reader r = new Reader(frame);
        CodedDecoder d = new CodedDecoder(ref r, 0, Table(3, i => 2048));
        foreach (int[] model in new[] { new[] { 0, 3 }, new[] { 1, 2 }, new[] { -1, 1 }, new[] { 0, 65 } })
        {
            int at = model[0];
            byte w = (byte)model[1];
            try
            {
                d.Value(at, w);
                throw new Failure("a model of " + w + " bits at " + at + " in 3 slots");
            }
            catch (DecodeError err)
            {
                Equal(ErrorKind.OverWidth, err.Kind, "a model of " + w + " bits at " + at);
                Equal(4L, err.Offset, "where the decoder is");
            }
        }
    }

    static void Hostile()
    {
        Rng rng = new Rng(0xBAD5EED);
        int accepted = 0;
        int refused = 0;
        for (int n = 0; n < 1500; n++)
        {
            Prob[] tables;
            Op[] ops = RandomOps(rng, rng.Below(12), out tables);
            int changed = rng.Below(ops.Length + 1);
            byte[] good = Encode(tables, ops, changed);
            byte[] h;
            switch (rng.Below(4))
            {
                case 0:
                    // Random bytes, a plausible coded_len first.
                    h = new byte[2 + rng.Below(24)];
                    for (int i = 2; i < h.Length; i++)
                    {
                        h[i] = (byte)rng.Below(256);
                    }
                    int len = rng.Below(3) == 0 ? rng.Below(65536) : h.Length - 2 - rng.Below(2);
                    h[0] = (byte)len;
                    h[1] = (byte)(len >> 8);
                    break;
                case 1:
                    h = (byte[])good.Clone();
                    h[rng.Below(h.Length)] ^= (byte)(1 << rng.Below(8));
                    break;
                case 2:
                    h = new byte[good.Length + 1];
                    Array.Copy(good, h, good.Length);
                    h[good.Length] = (byte)rng.Below(256);
                    h[0]++;
                    break;
                default:
                    h = new byte[rng.Below(good.Length + 1)];
                    Array.Copy(good, h, h.Length);
                    break;
            }
            // Read as this case's values: refused at an offset within the bytes, or the body
            // the encoder writes for what was read.
            Op[] read = (Op[])ops.Clone();
            int end;
            try
            {
                end = DecodeInto((Prob[])tables.Clone(), ops, h, 0, changed, read);
            }
            catch (DecodeError e)
            {
                refused++;
                True(e.Offset >= 0 && e.Offset <= h.Length, "case " + n + ": refused at " + e.Offset + " of " + h.Length);
                continue;
            }
            accepted++;
            byte[] body = new byte[end];
            Array.Copy(h, body, end);
            Equal(Hex(body), Hex(Encode(tables, read, changed)), "case " + n + ": an accepted body");
        }
        True(accepted > 0 && refused > 0, accepted + " accepted, " + refused + " refused");
    }

    static void Counts()
    {
        // The formula over a range of counts, against its own terms, and at the ends of u64.
        for (ulong c0 = 0; c0 < 40; c0++)
        {
            for (ulong c1 = 0; c1 < 40; c1++)
            {
                Equal((int)((c0 + 1) * 4096 / (c0 + c1 + 2)), SlotCounts.Trained(c0, c1), c0 + " and " + c1);
            }
        }
        Equal(2048, SlotCounts.Trained(ulong.MaxValue, ulong.MaxValue), "both at the most");
        Equal(4095, SlotCounts.Trained(ulong.MaxValue, 0), "zeros at the most, before the clamp");
        Equal(0, SlotCounts.Trained(0, ulong.MaxValue), "ones at the most, before the clamp");
        Equal(2730, SlotCounts.Trained(3, 1), "3 zeros, a one");
        Equal(2048, SlotCounts.Trained(1UL << 63, 1UL << 63), "even at 2^63");
        // Counting walks what the encoder codes: the slots the spec names, once a bit.
        Rng rng = new Rng(11);
        for (int n = 0; n < 100; n++)
        {
            Prob[] tables;
            Op[] ops = RandomOps(rng, rng.Below(20), out tables);
            SlotCounts counts = new SlotCounts(tables.Length);
            SlotCounts each = new SlotCounts(0);
            ulong[] want = new ulong[2 * tables.Length];
            foreach (Op op in ops)
            {
                op.Put(counts);
                SlotCounts one = new SlotCounts(tables.Length);
                op.Put(one);
                each.Add(one);
                ulong v = op.Signed ? Coded.Zigzag(unchecked((long)op.Value)) : op.Value;
                foreach (int[] sb in SpecBits(op.At, op.W, v))
                {
                    want[2 * sb[0] + sb[1]]++;
                }
            }
            // Summed one value at a time, from no slots.
            each.Add(new SlotCounts(tables.Length));
            Equal(tables.Length, each.Slots, "case " + n + ": Add grows to the longer");
            for (int s = 0; s < tables.Length; s++)
            {
                Equal(want[2 * s], counts.Count(s, false), "case " + n + ": slot " + s + "'s 0s");
                Equal(want[2 * s + 1], counts.Count(s, true), "case " + n + ": slot " + s + "'s 1s");
                Equal(counts.Count(s, false), each.Count(s, false), "case " + n + ": summed 0s");
                Equal(counts.Count(s, true), each.Count(s, true), "case " + n + ": summed 1s");
            }
            Prob[] trained = counts.Probs();
            for (int s = 0; s < tables.Length; s++)
            {
                int p = SlotCounts.Trained(want[2 * s], want[2 * s + 1]);
                Equal(Math.Min(Math.Max(p, 32), 4064), (int)trained[s].Get(), "case " + n + ": slot " + s + " trained");
            }
        }
        // A counted value is refused as the encoder refuses it, counting nothing.
        SlotCounts few = new SlotCounts(3);
        EncodeRefusal(() => few.Value(0, 3, 1), "a model past the counts");
        EncodeRefusal(() => few.Value(0, 1, 2), "2 in 1 bit");
        few.Value(2, 1, 1);
        Equal(1UL, few.Count(2, true), "one 1 under slot 2");
        Equal(0UL, few.Count(0, true) + few.Count(0, false) + few.Count(1, true) + few.Count(1, false), "nothing else");
        Equal(0, new SlotCounts(0).Probs().Length, "no slots, no tables");
        few.Add(few);
        Equal(2UL, few.Count(2, true), "added to itself");
    }
}
