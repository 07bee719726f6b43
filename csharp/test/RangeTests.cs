// Tests of Range.cs, the adaptive binary range coder, held to the Rust coder's cases,
// vectors/coder/range_coder_cases.txt (written from rt/src/range.rs by
// `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib range`; test.sh names the folder in
// $ACKWIRE_VECTORS_DIR): every `ok` case encodes to its bytes and decodes back to its values,
// allocating nothing, and every `err` case is refused with its kind at its offset. Then what the
// cases leave to the API: probabilities that never reach either end, values wider than their
// field, seeded round trips and hostile streams (refused, or the one stream the encoder writes
// for what was read), the stream's offset in errors. The same cases as the TypeScript and C++
// runtimes' tests. Found by RuntimeTests.Main through the `Tests` list.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using Ackwire.Runtime;
using static Harness;

static class RangeTests
{
    /// <summary>This file's tests, run by RuntimeTests.Main.</summary>
    public static readonly KeyValuePair<string, Action>[] Tests =
    {
        new KeyValuePair<string, Action>("range_coder_cases", Cases),
        new KeyValuePair<string, Action>("range_prob_never_reaches_either_end", ProbStaysInside),
        new KeyValuePair<string, Action>("range_value_wider_than_its_field", OverWidth),
        new KeyValuePair<string, Action>("range_random_and_hostile_streams", RandomAndHostile),
        new KeyValuePair<string, Action>("range_errors_carry_the_stream_offset", Offsets),
    };

    /// <summary>One op of a case: <c>aC=B</c>, <c>sC=B</c> or <c>tC:W=V</c> (the value left
    /// out in <c>err</c> cases).</summary>
    struct Op
    {
        public char Kind;
        public int Context;
        public byte Width;
        public ulong Value;

        public override string ToString()
        {
            return Kind + Context.ToString(CultureInfo.InvariantCulture) + ":" + Width + "=" + Value;
        }
    }

    static Op ParseOp(string text)
    {
        string[] kv = text.Split('=');
        string head = kv[0];
        string[] cw = head.Substring(1).Split(':');
        return new Op
        {
            Kind = head[0],
            Context = int.Parse(cw[0], CultureInfo.InvariantCulture),
            Width = cw.Length > 1 ? byte.Parse(cw[1], CultureInfo.InvariantCulture) : (byte)1,
            Value = kv.Length > 1 ? ulong.Parse(kv[1], CultureInfo.InvariantCulture) : 0,
        };
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

    static string Hex(byte[] bytes)
    {
        return BitConverter.ToString(bytes).Replace("-", "").ToLowerInvariant();
    }

    /// <summary>The contexts' probabilities, and a tree per context, made when it is first used
    /// with every slot at its context's probability as it is then (as rt/src/range/tests.rs's
    /// model does).</summary>
    sealed class Model
    {
        public readonly Prob[] Probs;
        readonly BitTree[] trees;
        // The probability each tree was made at.
        readonly Prob[] treeStarts;

        public Model(int[] starts)
        {
            Probs = new Prob[starts.Length];
            for (int i = 0; i < starts.Length; i++)
            {
                Probs[i] = Prob.Of(starts[i]).Value;
            }
            trees = new BitTree[starts.Length];
            treeStarts = new Prob[starts.Length];
        }

        /// <summary>The model <paramref name="used"/> started as, with its trees made up front
        /// (so that decoding with it allocates nothing of the test's).</summary>
        public Model(int[] starts, Model used) : this(starts)
        {
            for (int c = 0; c < trees.Length; c++)
            {
                if (used.trees[c] != null)
                {
                    trees[c] = new BitTree(used.treeStarts[c]);
                }
            }
        }

        public BitTree Tree(int c)
        {
            if (trees[c] == null)
            {
                trees[c] = new BitTree(Probs[c]);
                treeStarts[c] = Probs[c];
            }
            return trees[c];
        }
    }

    static byte[] Encode(int[] starts, Op[] ops)
    {
        Model m = new Model(starts);
        RangeEncoder e = new RangeEncoder();
        foreach (Op op in ops)
        {
            switch (op.Kind)
            {
                case 'a': e.Bit(ref m.Probs[op.Context], op.Value == 1); break;
                case 's': e.BitStatic(m.Probs[op.Context], op.Value == 1); break;
                default: e.Bits(m.Tree(op.Context), op.Width, op.Value); break;
            }
        }
        return e.Finish();
    }

    /// <summary>The values of <paramref name="shape"/> read from <paramref name="bytes"/>, the
    /// stream then finished.</summary>
    static Op[] Decode(int[] starts, Op[] shape, byte[] bytes)
    {
        Op[] back = (Op[])shape.Clone();
        Equal(bytes.Length, DecodeInto(new Model(starts), shape, bytes, back), "the stream's length");
        return back;
    }

    /// <summary><see cref="Decode"/> into <paramref name="back"/>, under <paramref name="m"/>:
    /// it allocates nothing but what the decoder does. Returns what Finish returns.</summary>
    static int DecodeInto(Model m, Op[] shape, byte[] bytes, Op[] back)
    {
        RangeDecoder d = new RangeDecoder(bytes, 0, bytes.Length);
        for (int i = 0; i < shape.Length; i++)
        {
            Op op = shape[i];
            switch (op.Kind)
            {
                case 'a': back[i].Value = d.Bit(ref m.Probs[op.Context]) ? 1UL : 0UL; break;
                case 's': back[i].Value = d.BitStatic(m.Probs[op.Context]) ? 1UL : 0UL; break;
                default: back[i].Value = d.Bits(m.Tree(op.Context), op.Width); break;
            }
        }
        return d.Finish();
    }

    static void Cases()
    {
        string dir = Environment.GetEnvironmentVariable("ACKWIRE_VECTORS_DIR");
        True(!string.IsNullOrEmpty(dir), "ACKWIRE_VECTORS_DIR names the repository's vectors/ (test.sh sets it)");
        int cases = 0;
        foreach (string line in File.ReadAllLines(Path.Combine(dir, "coder", "range_coder_cases.txt")))
        {
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }
            string[] f = line.Split(' ');
            string name = f[1];
            int[] starts = Array.ConvertAll(f[2].Split(','), s => int.Parse(s, CultureInfo.InvariantCulture));
            Op[] ops = f[3] == "-" ? new Op[0] : Array.ConvertAll(f[3].Split(','), ParseOp);
            byte[] bytes = Unhex(f[4]);
            if (f[0] == "ok")
            {
                Equal(Hex(bytes), Hex(Encode(starts, ops)), name + ": the stream");
                Model used = new Model(starts);
                Op[] back = (Op[])ops.Clone();
                Equal(bytes.Length, DecodeInto(used, ops, bytes, back), name + ": the stream's length");
                for (int i = 0; i < ops.Length; i++)
                {
                    Equal(ops[i].ToString(), back[i].ToString(), name + ": op " + i);
                }
                // Again, its trees made up front: the decoder allocates nothing.
                Model warm = new Model(starts, used);
                long before = GC.GetAllocatedBytesForCurrentThread();
                DecodeInto(warm, ops, bytes, back);
                Equal(0L, GC.GetAllocatedBytesForCurrentThread() - before, name + ": bytes allocated decoding");
            }
            else
            {
                Equal("err", f[0], name + ": the line's kind");
                DecodeError e = null;
                try
                {
                    Decode(starts, ops, bytes);
                }
                catch (DecodeError caught)
                {
                    e = caught;
                }
                True(e != null, name + ": refused");
                Equal(f[5], Errors.KindName(e.Kind), name + ": the kind");
                Equal(long.Parse(f[6], CultureInfo.InvariantCulture), e.Offset, name + ": the offset");
                Equal(-1L, e.Bit, name + ": no bit offset");
            }
            cases++;
        }
        True(cases >= 30, cases + " cases");
    }

    static void ProbStaysInside()
    {
        foreach (int start in new[] { 1, 2, 15, 16, 17, 2048, 4079, 4080, 4094, 4095 })
        {
            foreach (bool bit in new[] { false, true })
            {
                Prob p = Prob.Of(start).Value;
                for (int i = 0; i < 1000; i++)
                {
                    p.Adapt(bit);
                    True(Prob.Of(p.Get()).HasValue, start + " " + bit + ": " + p.Get());
                }
            }
        }
        True(!Prob.Of(0).HasValue, "0 is no probability");
        True(!Prob.Of(4096).HasValue, "4096 is no probability");
        Equal(Prob.Max, Prob.Of(4095).Value, "4095");
        Equal(Prob.Min, Prob.Of(1).Value, "1");
        Equal((ushort)2048, Prob.Half.Get(), "even odds");
    }

    static void Refused(ErrorKind kind, Action encode, string what)
    {
        try
        {
            encode();
        }
        catch (EncodeError e)
        {
            Equal(kind, e.Kind, what);
            return;
        }
        throw new Failure(what + ": not refused");
    }

    static void OverWidth()
    {
        RangeEncoder e = new RangeEncoder();
        BitTree t = new BitTree(Prob.Half);
        Refused(ErrorKind.OverWidth, () => e.Bits(t, 3, 8), "8 in 3 bits");
        Refused(ErrorKind.OverWidth, () => e.Bits(t, 65, 0), "a field of 65 bits");
        e.Bits(t, 3, 7);
        e.Bits(t, 64, ulong.MaxValue);
        True(BitTree.FromSlots(new[] { Prob.Half, Prob.Half, Prob.Half }) == null, "three slots");
        Prob[] trained = new Prob[RangeCoder.TreeSlots];
        for (int i = 0; i < trained.Length; i++)
        {
            trained[i] = Prob.Max;
        }
        Equal(Prob.Max, BitTree.FromSlots(trained).Slots()[5], "a trained slot");
    }

    static void RandomAndHostile()
    {
        Rng rng = new Rng(0x9E3779B97F4A7C15UL);
        int accepted = 0;
        for (int n = 0; n < 400; n++)
        {
            int[] starts = { 1 + rng.Below(4095), 1 + rng.Below(4095), 1 + rng.Below(4095) };
            Op[] ops = new Op[rng.Below(40)];
            for (int i = 0; i < ops.Length; i++)
            {
                char kind = "ast"[rng.Below(3)];
                byte width = kind == 't' ? (byte)rng.Below(65) : (byte)1;
                ulong random = rng.Next();
                ulong value = kind != 't' ? (ulong)rng.Below(2)
                    : width == 64 ? random : random & ((1UL << width) - 1);
                ops[i] = new Op { Kind = kind, Context = rng.Below(3), Width = width, Value = value };
            }
            byte[] bytes = Encode(starts, ops);
            Op[] back = Decode(starts, ops, bytes);
            for (int i = 0; i < ops.Length; i++)
            {
                Equal(ops[i].ToString(), back[i].ToString(), "case " + n + ", op " + i);
            }
            // The stream cut short, lengthened, changed in a byte, or random bytes: read as this
            // case's fields, it is refused at an offset within it, or it is the one stream the
            // encoder writes for what was read.
            byte[] cut = new byte[Math.Max(bytes.Length - 1 - rng.Below(3), 0)];
            Array.Copy(bytes, cut, cut.Length);
            byte[] longer = new byte[bytes.Length + 1];
            Array.Copy(bytes, longer, bytes.Length);
            longer[bytes.Length] = (byte)rng.Below(256);
            byte[] changed = (byte[])bytes.Clone();
            if (changed.Length > 0)
            {
                changed[rng.Below(changed.Length)] ^= (byte)(1 << rng.Below(8));
            }
            byte[] junk = new byte[rng.Below(24)];
            for (int i = 0; i < junk.Length; i++)
            {
                junk[i] = (byte)rng.Below(256);
            }
            foreach (byte[] h in new[] { cut, longer, changed, junk })
            {
                Op[] read = null;
                try
                {
                    read = Decode(starts, ops, h);
                }
                catch (DecodeError e)
                {
                    True(e.Offset <= h.Length, "case " + n + ": refused at " + e.Offset + ", past " + h.Length);
                }
                if (read != null)
                {
                    accepted++;
                    Equal(Hex(h), Hex(Encode(starts, read)), "case " + n + ": an accepted stream");
                }
            }
        }
        True(accepted > 0, "some hostile streams are canonical ones");
    }

    static void Offsets()
    {
        // The stream starts at byte 10 of its frame.
        byte[] frame = new byte[14];
        for (int i = 10; i < 14; i++)
        {
            frame[i] = 0xFF;
        }
        try
        {
            new RangeDecoder(frame, 10, 4);
            throw new Failure("a code past its range is read");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.NonCanonical, e.Kind, "a code past its range");
            Equal(14L, e.Offset, "where");
        }
        RangeDecoder d = new RangeDecoder(frame, 10, 0);
        try
        {
            for (int i = 0; i < 8; i++)
            {
                d.BitStatic(Prob.Min);
            }
            throw new Failure("eight unlikely zeros decoded from nothing");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.Truncated, e.Kind, "past the end");
            Equal(10L, e.Offset, "where");
        }
    }
}
