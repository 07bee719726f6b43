// The coded values of kind 13's body (docs/spec/coded.md): what a generated coded frame writes
// its changes' values into and reads them back from, over the range coder (Range.cs), and the
// training counts of its tables. The port
// of rt/src/coded.rs, name for name and error for error; vectors/coder/coded_cases.txt holds
// every runtime to the same bodies.
//
// - A value v of at most W bits is coded under a model of Coded.ModelSlots(W) slots starting at
//   slot `at` of the frame's tables: its bit length through a bit tree, then the bits below its
//   highest one (CODE-6, CODE-7, CODE-8). Every bit goes through RangeEncoder.Bit, so the slots
//   adapt within the frame (CODE-9); the caller copies the tables for each frame.
// - The body is `u16 coded_len` and the stream, zero-padded to Coded.FloorLen of the changes
//   (CODE-4, CODE-5). The CodedDecoder constructor refuses a coded_len under the floor before it
//   decodes anything (`count_too_large`: the taxonomy has no `over_limit`, and this is a count
//   larger than the bytes hold), CodedDecoder.Value a bit length over the width (`over_width`),
//   and CodedDecoder.Finish anything but the stream the encoder writes.
// - A model's slots past the tables it is given are refused (`over_width`), never indexed.
//
// Within a model, the bits below the first t are coded most significant first, each under the
// next slot of its length's block: the first of them under the block's first position slot.
//
// The basis a generated coded frame is predicted from (ICodedBasis, NoBasis, CodedBasisTicks:
// CODE-2, CODE-3, CODE-13, CODE-14) is the session machines' to give (Sessions/Acked.cs).
//
// Untrusted input: the decoder (a struct, passed by ref like Reader) allocates nothing, and
// every fault is a DecodeError with its kind and byte offset.

using System;

namespace Ackwire.Runtime
{
    /// <summary>The coded profile's sizes and integer rules.</summary>
    public static class Coded
    {
        /// <summary>The least bits a change takes in the stream (CODE-4): a body's
        /// <c>coded_len</c> is at least <c>ceil(changed_count × 10 / 8)</c>, which bounds the
        /// changes a decoder allocates for by its input.</summary>
        public const int CodedFloorBits = 12;

        /// <summary>The least <c>coded_len</c> of a body of <paramref name="changedCount"/>
        /// changes: <c>ceil(changed_count × 10 / 8)</c> (CODE-4), saturating at
        /// <c>int.MaxValue</c>.</summary>
        public static int FloorLen(int changedCount)
        {
            if (changedCount < 0)
            {
                throw new ArgumentOutOfRangeException("changedCount", "a count is not negative");
            }
            return (int)Math.Min(((long)changedCount * CodedFloorBits + 7) / 8, int.MaxValue);
        }

        /// <summary>The bit length of <paramref name="v"/>: 0 for 0, else the position of its
        /// highest one bit plus one.</summary>
        internal static int BitLen(ulong v)
        {
            int n = 0;
            while (v != 0)
            {
                v >>= 1;
                n++;
            }
            return n;
        }

        /// <summary>Where the block of bit length <paramref name="l"/> (2 and up) starts, past the
        /// length tree: the sizes of the blocks of 2 to <c>l - 1</c>, each <c>2^t - 1</c> tree
        /// slots and <c>l - 1 - t</c> position slots, <c>t = min(l - 1, 3)</c> (1, 3, then
        /// <c>7 + (l - 4)</c> from 4 on).</summary>
        internal static int BlockOffset(int l)
        {
            if (l <= 2)
            {
                return 0;
            }
            if (l == 3)
            {
                return 1;
            }
            // 4 for lengths 2 and 3, then the sum of `j + 3` for j from 4 to l - 1.
            return 4 + (l - 1) * l / 2 - 6 + 3 * (l - 4);
        }

        /// <summary>The slots of a model of <paramref name="w"/> bits (CODE-8): the length tree's
        /// <c>2^k - 1</c> (<c>k</c> the bit length of <c>w</c>), then for each bit length
        /// <c>L</c> from 2 to <c>w</c> its tree's <c>2^t - 1</c> and its <c>L - 1 - t</c>
        /// position slots, <c>t = min(L - 1, 3)</c>. 0 for <c>w = 0</c>, 2388 for 64.</summary>
        public static int ModelSlots(byte w)
        {
            int tree = (1 << BitLen(w)) - 1;
            return w < 2 ? tree : tree + BlockOffset(w + 1);
        }

        /// <summary>The slots of a model of <paramref name="w"/> bits starting at
        /// <paramref name="at"/>, checked against the <paramref name="len"/> slots of the tables
        /// before any is touched.</summary>
        internal static bool ModelFits(int at, byte w, int len)
        {
            return w <= 64 && at >= 0 && at <= len && ModelSlots(w) <= len - at;
        }

        /// <summary><c>v × num / den</c> rounded to the nearest integer, halves away from zero
        /// (CODE-13), saturating at <c>long</c>'s ends; a <paramref name="den"/> of 0 is taken
        /// as 1.</summary>
        public static long Extrapolate(long v, uint num, uint den)
        {
            ulong d = Math.Max(den, 1u);
            // |v| (2^63 at most) × num / d, as q × num + r × num / d with r < d: every product
            // below fits 64 bits but q × num, which is checked.
            ulong a = v < 0 ? unchecked(0UL - (ulong)v) : (ulong)v;
            ulong q = a / d;
            ulong r = a % d;
            ulong rn = r * num;
            // Positive results end at 2^63 - 1, negative ones at -2^63.
            ulong limit = v < 0 ? 1UL << 63 : (1UL << 63) - 1;
            ulong m;
            if (num != 0 && q > limit / num)
            {
                m = limit;
            }
            else
            {
                m = q * num + rn / d;
                ulong rest = rn % d;
                // A half or more rounds away from zero.
                if (rest >= d - rest)
                {
                    m++;
                }
                m = Math.Min(m, limit);
            }
            return v < 0 ? unchecked((long)(0UL - m)) : (long)m;
        }

        /// <summary>Maps a signed value onto an unsigned one:
        /// <c>(n &lt;&lt; 1) ^ (n &gt;&gt; 63)</c>.</summary>
        public static ulong Zigzag(long n)
        {
            return unchecked((ulong)(n << 1) ^ (ulong)(n >> 63));
        }

        /// <summary>The inverse of <see cref="Zigzag"/>.</summary>
        public static long Unzigzag(ulong z)
        {
            return unchecked((long)(z >> 1) ^ -(long)(z & 1));
        }

        /// <summary>Checks a value and its model before anything is coded: a width over 64, a
        /// value over its width, or slots past the tables are over width.</summary>
        internal static void CheckValue(int at, byte w, ulong v, int len)
        {
            bool fits = w <= 64 && (w == 64 || v >> w == 0);
            if (!fits || !ModelFits(at, w, len))
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
        }

        /// <summary>Walks the bits of a value of a model of <paramref name="w"/> bits (at most
        /// 64) whose slots start at <paramref name="at"/> and fit the tables: each bit goes
        /// through <paramref name="coder"/> (the encoder codes the bit it is given, the decoder
        /// returns the one it reads), and the value is built from the bits it returns.
        /// <paramref name="v"/> is what the encoder codes (0 for the decoder). A bit length over
        /// <paramref name="w"/>, which only a decoder meets, throws the coder's error.</summary>
        internal static ulong Walk<T>(ref T coder, int at, byte w, ulong v) where T : ICodedBits
        {
            int k = BitLen(w);
            int wantLen = BitLen(v);
            // The length, most significant bit first, down the tree from node 1.
            int m = 1;
            for (int i = k - 1; i >= 0; i--)
            {
                bool b = coder.Bit(at + m - 1, (wantLen >> i & 1) == 1);
                m = 2 * m + (b ? 1 : 0);
            }
            int l = m - (1 << k);
            if (l > w)
            {
                throw coder.OverWidth();
            }
            if (l <= 1)
            {
                return (ulong)l;
            }
            int block = at + (1 << k) - 1 + BlockOffset(l);
            // The first t bits below the highest one, through the block's tree.
            int t = Math.Min(l - 1, 3);
            m = 1;
            for (int i = 0; i < t; i++)
            {
                int pos = l - 2 - i;
                bool b = coder.Bit(block + m - 1, (v >> pos & 1) == 1);
                m = 2 * m + (b ? 1 : 0);
            }
            ulong out_ = 1UL << (l - 1) | (ulong)(m - (1 << t)) << (l - 1 - t);
            // The rest, each under a slot of its own.
            int positions = block + (1 << t) - 1;
            for (int j = 0; j < l - 1 - t; j++)
            {
                int pos = l - 2 - t - j;
                if (coder.Bit(positions + j, (v >> pos & 1) == 1))
                {
                    out_ |= 1UL << pos;
                }
            }
            return out_;
        }
    }

    /// <summary>One bit of a walk (<c>Coded.Walk</c>): the encoder codes
    /// <c>wanted</c> and returns it, the decoder returns the bit it reads.</summary>
    internal interface ICodedBits
    {
        bool Bit(int slot, bool wanted);

        Exception OverWidth();
    }

    /// <summary>What a generated coded frame writes its values into: the encoder, or the counts
    /// that train its tables (CODE-17).</summary>
    public abstract class CodedSink
    {
        /// <summary><paramref name="v"/> (below <c>2^w</c>) under the model whose slots start at
        /// <paramref name="at"/> (CODE-7).</summary>
        public abstract void Value(int at, byte w, ulong v);

        /// <summary><paramref name="v"/> as its zigzag code (<paramref name="w"/> bits).</summary>
        public void Signed(int at, byte w, long v)
        {
            Value(at, w, Coded.Zigzag(v));
        }
    }

    /// <summary>Codes a frame's values under its tables (a copy for this frame: they adapt) and
    /// ends the body (CODE-4, CODE-5).</summary>
    public sealed class CodedEncoder : CodedSink, ICodedBits
    {
        readonly Prob[] probs;
        readonly RangeEncoder enc;

        /// <summary>An encoder over <paramref name="probs"/>: the frame's tables, copied by the
        /// caller.</summary>
        public CodedEncoder(Prob[] probs)
        {
            if (probs == null)
            {
                throw new ArgumentNullException("probs");
            }
            this.probs = probs;
            enc = new RangeEncoder();
        }

        bool ICodedBits.Bit(int slot, bool wanted)
        {
            enc.Bit(ref probs[slot], wanted);
            return wanted;
        }

        Exception ICodedBits.OverWidth()
        {
            return new EncodeError(ErrorKind.OverWidth);
        }

        /// <summary><paramref name="v"/> (below <c>2^w</c>) under the model whose slots start at
        /// <paramref name="at"/> (CODE-7): a width over 64, a value over its width or slots past
        /// the tables are over width, refused before any bit is coded.</summary>
        public override void Value(int at, byte w, ulong v)
        {
            Coded.CheckValue(at, w, v, probs.Length);
            CodedEncoder self = this;
            Coded.Walk(ref self, at, w, v);
        }

        /// <summary>Appends <c>u16 coded_len</c> then the stream, zero-padded to
        /// <see cref="Coded.FloorLen"/>(<paramref name="changedCount"/>) (CODE-4, CODE-5). A body
        /// longer than a <c>u16</c> counts is refused as <c>count_too_large</c>, and
        /// <paramref name="w"/> is left as it was. The encoder is spent.</summary>
        public void Finish(int changedCount, Writer w)
        {
            byte[] stream = enc.Finish();
            int codedLen = Math.Max(stream.Length, Coded.FloorLen(changedCount));
            if (codedLen > ushort.MaxValue)
            {
                throw new EncodeError(ErrorKind.CountTooLarge);
            }
            w.U16((ushort)codedLen, false);
            w.Put(stream);
            w.Put(new byte[codedLen - stream.Length]);
        }
    }

    /// <summary>The 0s and 1s coded under each slot, walking the bits <see cref="CodedEncoder"/>
    /// would code with none of its adaptation: what <c>ackwire train</c> sums over recorded frames
    /// (CODE-17).</summary>
    public sealed class SlotCounts : CodedSink, ICodedBits
    {
        // Slot s's 0s at 2s, its 1s at 2s + 1.
        ulong[] counts;

        /// <summary>No bits yet, over <paramref name="slots"/> slots.</summary>
        public SlotCounts(int slots)
        {
            if (slots < 0)
            {
                throw new ArgumentOutOfRangeException("slots", "a count of slots is not negative");
            }
            counts = new ulong[2 * (long)slots];
        }

        /// <summary>The slots counted.</summary>
        public int Slots { get { return counts.Length / 2; } }

        /// <summary>The times <paramref name="bit"/> was coded under slot
        /// <paramref name="slot"/>.</summary>
        public ulong Count(int slot, bool bit)
        {
            return counts[2 * slot + (bit ? 1 : 0)];
        }

        /// <summary><paramref name="other"/>'s counts added to these, slot by slot (growing to
        /// the longer of the two), saturating.</summary>
        public void Add(SlotCounts other)
        {
            if (counts.Length < other.counts.Length)
            {
                Array.Resize(ref counts, other.counts.Length);
            }
            for (int i = 0; i < other.counts.Length; i++)
            {
                ulong sum = unchecked(counts[i] + other.counts[i]);
                counts[i] = sum < counts[i] ? ulong.MaxValue : sum;
            }
        }

        /// <summary>Trained starting probabilities: <c>p = (c0+1)*4096/(c0+c1+2)</c>, rounded
        /// down, clamped to 32..=4064 so that a slot never seen one way can still code it at a
        /// bounded cost.</summary>
        public Prob[] Probs()
        {
            Prob[] probs = new Prob[Slots];
            for (int s = 0; s < probs.Length; s++)
            {
                int p = Trained(counts[2 * s], counts[2 * s + 1]);
                probs[s] = Prob.Of(Math.Min(Math.Max(p, 32), 4064)) ?? Prob.Half;
            }
            return probs;
        }

        // (c0+1)*4096/(c0+c1+2) rounded down, exactly: a = c0 + 1 and d = c0 + c1 + 2 take up to
        // 66 bits, held as (hi, lo); a < d, so the quotient is the first 12 bits of the fraction
        // a / d, found by long division.
        internal static int Trained(ulong c0, ulong c1)
        {
            ulong lo = unchecked(c0 + 1);
            ulong hi = lo == 0 ? 1UL : 0UL;
            ulong dlo = unchecked(c0 + c1);
            ulong dhi = dlo < c0 ? 1UL : 0UL;
            ulong dlo2 = unchecked(dlo + 2);
            dhi += dlo2 < dlo ? 1UL : 0UL;
            dlo = dlo2;
            int q = 0;
            for (int i = 0; i < RangeCoder.ProbBits; i++)
            {
                hi = hi << 1 | lo >> 63;
                lo <<= 1;
                q <<= 1;
                if (hi > dhi || (hi == dhi && lo >= dlo))
                {
                    ulong borrow = lo < dlo ? 1UL : 0UL;
                    lo = unchecked(lo - dlo);
                    hi = hi - dhi - borrow;
                    q |= 1;
                }
            }
            return q;
        }

        bool ICodedBits.Bit(int slot, bool wanted)
        {
            int i = 2 * slot + (wanted ? 1 : 0);
            if (counts[i] != ulong.MaxValue)
            {
                counts[i]++;
            }
            return wanted;
        }

        Exception ICodedBits.OverWidth()
        {
            return new EncodeError(ErrorKind.OverWidth);
        }

        /// <summary>Counts the bits of <paramref name="v"/> (below <c>2^w</c>) under the model
        /// whose slots start at <paramref name="at"/>, as <see cref="CodedEncoder.Value"/> codes
        /// them, with its refusals.</summary>
        public override void Value(int at, byte w, ulong v)
        {
            Coded.CheckValue(at, w, v, Slots);
            SlotCounts self = this;
            Coded.Walk(ref self, at, w, v);
        }
    }

    /// <summary>Reads a frame's values back under its tables (a copy for this frame: they
    /// adapt), refusing a body that is not the one the encoder writes (CODE-4, CODE-5, CODE-7).
    /// A struct, passed by ref, so that decoding allocates nothing.</summary>
    public struct CodedDecoder : ICodedBits
    {
        RangeDecoder dec;
        readonly Prob[] probs;
        // coded_len is the floor: the stream may be zero-padded.
        readonly bool atFloor;

        /// <summary>Reads <c>u16 coded_len</c> at <paramref name="r"/>, refuses it under
        /// <see cref="Coded.FloorLen"/>(<paramref name="changedCount"/>) as
        /// <c>count_too_large</c> at <c>coded_len</c> before anything else is read (CODE-4; the
        /// spec's <c>over_limit</c>), and takes the stream's bytes from <paramref name="r"/>
        /// (<c>truncated</c> if fewer remain). <paramref name="probs"/>: the frame's tables,
        /// copied by the caller.</summary>
        public CodedDecoder(ref Reader r, int changedCount, Prob[] probs)
        {
            if (probs == null)
            {
                throw new ArgumentNullException("probs");
            }
            int at = r.Offset;
            int codedLen = r.U16(false);
            int floor = Coded.FloorLen(changedCount);
            if (codedLen < floor)
            {
                throw r.Fail(ErrorKind.CountTooLarge, at);
            }
            int start = r.Skip(codedLen);
            dec = new RangeDecoder(r.Frame, start, codedLen);
            this.probs = probs;
            atFloor = codedLen == floor;
        }

        bool ICodedBits.Bit(int slot, bool wanted)
        {
            return dec.Bit(ref probs[slot]);
        }

        Exception ICodedBits.OverWidth()
        {
            return new DecodeError(ErrorKind.OverWidth, dec.Offset(), -1);
        }

        /// <summary>A value of at most <paramref name="w"/> bits under the model whose slots start
        /// at <paramref name="at"/>: a bit length over <paramref name="w"/> is <c>over_width</c>
        /// (as are a width over 64 and slots past the tables).</summary>
        public ulong Value(int at, byte w)
        {
            if (probs == null || !Coded.ModelFits(at, w, probs.Length))
            {
                throw new DecodeError(ErrorKind.OverWidth, dec.Offset(), -1);
            }
            return Coded.Walk(ref this, at, w, 0);
        }

        /// <summary>The frame offset of the byte the stream has read up to: where a value's
        /// fault (out of its field's range, an id not ascending) is reported, as near the value
        /// as a range coder can place it.</summary>
        public long Offset()
        {
            return dec.Offset();
        }

        /// <summary>A signed value: <see cref="Value"/> unzigzagged.</summary>
        public long Signed(int at, byte w)
        {
            return Coded.Unzigzag(Value(at, w));
        }

        /// <summary>Ends the body once every value is read (CODE-5): above the floor, the stream
        /// must be exactly what the encoder writes (<see cref="RangeDecoder.Finish"/>); at the
        /// floor, the code must be the interval's bottom and every byte not reached 0
        /// (<c>trailing_bytes</c> at the first that is not).</summary>
        public void Finish()
        {
            if (atFloor)
            {
                dec.FinishPadded();
            }
            else
            {
                dec.Finish();
            }
        }
    }

    /// <summary>What a coded frame's changes are predicted from (CODE-13, CODE-14): the entity's
    /// record in the frame's base and in its older snapshot (Rust's <c>CodedBasis</c>).
    /// Implemented by the session machines; null is a record not held.</summary>
    public interface ICodedBasis<R> where R : class
    {
        /// <summary>The entity's record in the frame's base, if the base holds it.</summary>
        R Base(int eid);

        /// <summary>The entity's record in the older snapshot, if there is one and it holds the
        /// entity.</summary>
        R Older(int eid);
    }

    /// <summary>A basis with nothing in it (a keyframe; tests).</summary>
    public sealed class NoBasis<R> : ICodedBasis<R> where R : class
    {
        /// <summary>The one there needs to be.</summary>
        public static readonly NoBasis<R> Instance = new NoBasis<R>();

        /// <summary>Nothing.</summary>
        public R Base(int eid)
        {
            return null;
        }

        /// <summary>Nothing.</summary>
        public R Older(int eid)
        {
            return null;
        }
    }

    /// <summary>What a coded frame's basis is looked up by, read from its prefix before its body
    /// (CODE-2, CODE-3): its tick and its base's, whether it is a keyframe, and its
    /// <c>older</c> distance.</summary>
    public struct CodedBasisTicks
    {
        /// <summary>The frame's tick.</summary>
        public uint Tick;
        /// <summary>The tick of the frame's base.</summary>
        public uint BaseTick;
        /// <summary>The frame is a keyframe: it has no base.</summary>
        public bool Keyframe;
        /// <summary>Ticks from the base back to the older snapshot; 0 for none.</summary>
        public byte Older;
    }
}
