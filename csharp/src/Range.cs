// The adaptive binary range coder the coded profile of issue 39 codes its fields with
// (docs/perf/coding.md says why this one): LZMA's coder, in integer arithmetic that every
// language reproduces byte for byte. The port of rt/src/range.rs, name for name and error for
// error; vectors/coder/range_coder_cases.txt holds every runtime to the same streams.
//
// - A Prob is the chance that the next bit is 0, in 4096ths, 1 to 4095. Coding a bit with
//   RangeEncoder.Bit moves it a sixteenth of the way towards the bit seen; the decoder moves its
//   copy the same way, so both stay equal as long as they start equal (a frame starts from
//   trained tables and adapts within itself only).
// - The state is a 32-bit range and a 33-bit low; a byte leaves whenever the range falls under
//   2^24, a carry travelling back through a cached byte and its run of `0xff`.
// - The stream ends with the interval's bottom, flushed whole, and drops what a decoder can
//   supply: the first byte (always 0) and up to MaxImplicitZeros zero bytes at its end, which
//   the decoder reads back as zeros.
//
// Untrusted input: the decoder (a struct, passed by ref like Reader) allocates nothing and reads
// at most MaxImplicitZeros bytes past the end before it refuses the stream as truncated; each
// bit costs at most two byte reads, and the caller's layout bounds the bits, so no input makes
// it spin. A stream is canonical (what the encoder writes, and only that): RangeDecoder.Finish
// refuses bytes the decode did not reach and a last zero byte the encoder would have dropped,
// and a code outside its range (which no encoder writes) is refused at the bit that finds it.

using System;

namespace Ackwire.Runtime
{
    /// <summary>The range coder's constants.</summary>
    public static class RangeCoder
    {
        /// <summary>Bits of a probability's scale: 4096ths.</summary>
        public const int ProbBits = 12;
        /// <summary>Each coded bit moves its probability <c>1 / 2^AdaptShift</c> of the way.</summary>
        public const int AdaptShift = 4;
        /// <summary>The most zero bytes the encoder drops from a stream's end, and so the most a
        /// decoder reads past the end.</summary>
        public const int MaxImplicitZeros = 4;
        /// <summary>The first bits of a field whose probabilities depend on the bits before them.</summary>
        public const int TreeBits = 8;
        /// <summary>Slots of a <see cref="BitTree"/>: a binary tree over a field's first
        /// <see cref="TreeBits"/> bits (slot <c>1 &lt;&lt; i | prefix</c> for bit <c>i</c>, the
        /// bits before it as the prefix; slot 0 unused) and one slot for each bit after, up to
        /// 64.</summary>
        public const int TreeSlots = (1 << TreeBits) + 64;
        /// <summary>The range is renormalised, a byte at a time, whenever it falls under this.</summary>
        internal const uint Top = 1u << 24;
        internal const uint ProbOne = 1u << ProbBits;
    }

    /// <summary>The chance that the next bit is 0, in 4096ths: 1 to 4095, so that neither bit is
    /// ever impossible.</summary>
    public struct Prob : IEquatable<Prob>
    {
        ushort p;

        Prob(ushort p)
        {
            this.p = p;
        }

        /// <summary>Even odds.</summary>
        public static readonly Prob Half = new Prob((ushort)(1 << (RangeCoder.ProbBits - 1)));
        /// <summary>The least chance of a 0.</summary>
        public static readonly Prob Min = new Prob(1);
        /// <summary>The greatest chance of a 0.</summary>
        public static readonly Prob Max = new Prob((ushort)(RangeCoder.ProbOne - 1));

        /// <summary><paramref name="p"/> 4096ths, or none outside 1 to 4095.</summary>
        public static Prob? Of(int p)
        {
            if (p >= 1 && p < RangeCoder.ProbOne)
            {
                return new Prob((ushort)p);
            }
            return null;
        }

        /// <summary>Its 4096ths.</summary>
        public ushort Get()
        {
            return p;
        }

        /// <summary>Moved a sixteenth of the way towards <paramref name="bit"/>. It never leaves 1
        /// to 4095: a step is rounded down, so it stops short of either end.</summary>
        public void Adapt(bool bit)
        {
            if (bit)
            {
                p = (ushort)(p - (p >> RangeCoder.AdaptShift));
            }
            else
            {
                p = (ushort)(p + ((RangeCoder.ProbOne - p) >> RangeCoder.AdaptShift));
            }
        }

        /// <summary>Where the range splits: the 0s below, the 1s from here.</summary>
        public uint Bound(uint range)
        {
            return (range >> RangeCoder.ProbBits) * p;
        }

        /// <summary>The same chance.</summary>
        public bool Equals(Prob other)
        {
            return p == other.p;
        }

        /// <inheritdoc/>
        public override bool Equals(object obj)
        {
            return obj is Prob && Equals((Prob)obj);
        }

        /// <inheritdoc/>
        public override int GetHashCode()
        {
            return p;
        }

        /// <inheritdoc/>
        public override string ToString()
        {
            return p + "/4096";
        }
    }

    /// <summary>The probabilities of one field's bits, coded least significant first: a binary
    /// tree over the first <see cref="RangeCoder.TreeBits"/> (each bit's probability chosen by
    /// the bits before it) and one per bit position after.</summary>
    public sealed class BitTree
    {
        internal readonly Prob[] probs;

        /// <summary>Every slot at <paramref name="p"/>.</summary>
        public BitTree(Prob p)
        {
            probs = new Prob[RangeCoder.TreeSlots];
            for (int i = 0; i < probs.Length; i++)
            {
                probs[i] = p;
            }
        }

        /// <summary>Slots from a trained table, <see cref="RangeCoder.TreeSlots"/> of them in slot
        /// order (copied); null if the table has another length.</summary>
        public static BitTree FromSlots(Prob[] slots)
        {
            if (slots == null || slots.Length != RangeCoder.TreeSlots)
            {
                return null;
            }
            BitTree tree = new BitTree(Prob.Half);
            Array.Copy(slots, tree.probs, slots.Length);
            return tree;
        }

        /// <summary>The slots, in slot order (a copy).</summary>
        public Prob[] Slots()
        {
            return (Prob[])probs.Clone();
        }

        /// <summary>The slot of bit <paramref name="i"/> of a field whose lower bits are
        /// <paramref name="prefix"/> (a static model codes each bit under
        /// <c>Slots()[Slot(i, prefix)]</c> itself).</summary>
        public static int Slot(int i, ulong prefix)
        {
            if (i < RangeCoder.TreeBits)
            {
                return (1 << i) | ((int)(prefix & 0xFF) & ((1 << i) - 1));
            }
            return (1 << RangeCoder.TreeBits) + i;
        }
    }

    /// <summary>Codes bits into a stream; <see cref="Finish"/> ends it.</summary>
    public sealed class RangeEncoder
    {
        // The bottom of the interval; bit 32 is a carry not yet added to the cached byte.
        ulong low;
        uint range;
        // The byte waiting for a possible carry, and how many bytes wait with it (it and the
        // 0xff's after it, which a carry turns to 0x00).
        byte cache;
        ulong cacheSize;
        byte[] buf;
        int len;

        /// <summary>An empty stream.</summary>
        public RangeEncoder()
        {
            low = 0;
            range = uint.MaxValue;
            cache = 0;
            cacheSize = 1;
            buf = new byte[16];
            len = 0;
        }

        void Push(byte b)
        {
            if (len == buf.Length)
            {
                byte[] grown = new byte[buf.Length * 2];
                Buffer.BlockCopy(buf, 0, grown, 0, len);
                buf = grown;
            }
            buf[len++] = b;
        }

        // The top byte of `low` leaves, unless it may still take a carry.
        void ShiftLow()
        {
            if (low < 0xFF000000UL || low > 0xFFFFFFFFUL)
            {
                byte carry = (byte)(low >> 32);
                byte b = cache;
                while (cacheSize > 0)
                {
                    Push(unchecked((byte)(b + carry)));
                    b = 0xFF;
                    cacheSize--;
                }
                cache = (byte)(low >> 24);
            }
            cacheSize++;
            low = (low & 0x00FFFFFFUL) << 8;
        }

        void Put(Prob prob, bool bit)
        {
            uint bound = prob.Bound(range);
            if (bit)
            {
                low += bound;
                range -= bound;
            }
            else
            {
                range = bound;
            }
            while (range < RangeCoder.Top)
            {
                range <<= 8;
                ShiftLow();
            }
        }

        /// <summary><paramref name="bit"/> under <paramref name="prob"/>, which then moves towards it.</summary>
        public void Bit(ref Prob prob, bool bit)
        {
            Put(prob, bit);
            prob.Adapt(bit);
        }

        /// <summary><paramref name="bit"/> under <paramref name="prob"/>, which stays as it is (a
        /// static model).</summary>
        public void BitStatic(Prob prob, bool bit)
        {
            Put(prob, bit);
        }

        /// <summary>The low <paramref name="width"/> bits of <paramref name="value"/> (0 to 64 of
        /// them), least significant first, under <paramref name="tree"/>'s slots, which adapt. A
        /// value wider than <paramref name="width"/> is refused as over width.</summary>
        public void Bits(BitTree tree, byte width, ulong value)
        {
            if (width > 64 || (width < 64 && value >> width != 0))
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
            for (int i = 0; i < width; i++)
            {
                Bit(ref tree.probs[BitTree.Slot(i, value)], (value >> i & 1) == 1);
            }
        }

        /// <summary>Ends the stream and returns it: the interval's bottom flushed, the first byte
        /// (always 0) and up to <see cref="RangeCoder.MaxImplicitZeros"/> trailing zero bytes
        /// dropped. The encoder is spent.</summary>
        public byte[] Finish()
        {
            for (int i = 0; i < 5; i++)
            {
                ShiftLow();
            }
            // The interval starts within [0, 2^32) and only narrows, so nothing carries into the
            // first byte: it is the initial cache, 0.
            int end = len;
            while (end > 1 && len - end < RangeCoder.MaxImplicitZeros && buf[end - 1] == 0)
            {
                end--;
            }
            int n = Math.Max(end - 1, 0);
            byte[] stream = new byte[n];
            Buffer.BlockCopy(buf, 1, stream, 0, n);
            return stream;
        }
    }

    /// <summary>Reads bits back from a stream, refusing one that is not what an encoder writes.
    /// A struct, passed by ref, so that decoding allocates nothing.</summary>
    public struct RangeDecoder
    {
        uint code;
        uint range;
        readonly byte[] bytes;
        // The stream is bytes[start .. start + length]; errors name offsets from bytes' start.
        readonly int start;
        readonly int length;
        // Bytes taken, those past the end (read as zeros) included.
        int at;

        /// <summary>A decoder over the <paramref name="length"/> bytes at
        /// <paramref name="start"/> of <paramref name="bytes"/> (the frame: errors name their
        /// offsets from its start); it reads its first four bytes (zeros past the end).</summary>
        public RangeDecoder(byte[] bytes, int start, int length)
        {
            if (bytes == null || start < 0 || length < 0 || start > bytes.Length - length)
            {
                throw new ArgumentOutOfRangeException("length", "the stream is not within its frame");
            }
            code = 0;
            range = uint.MaxValue;
            this.bytes = bytes;
            this.start = start;
            this.length = length;
            at = 0;
            for (int i = 0; i < 4; i++)
            {
                code = (code << 8) | Next();
            }
            Check();
        }

        static DecodeError Fail(ErrorKind kind, long offset)
        {
            return new DecodeError(kind, offset, -1);
        }

        // The next byte; past the end, a zero the encoder dropped, at most MaxImplicitZeros of
        // them.
        byte Next()
        {
            byte b;
            if (at < length)
            {
                b = bytes[start + at];
            }
            else if (at - length < RangeCoder.MaxImplicitZeros)
            {
                b = 0;
            }
            else
            {
                throw Fail(ErrorKind.Truncated, (long)start + length);
            }
            at++;
            return b;
        }

        // The code lies inside the range, as every encoder leaves it.
        void Check()
        {
            if (code >= range)
            {
                throw Fail(ErrorKind.NonCanonical, (long)start + Math.Min(at, length));
            }
        }

        bool Get(Prob prob)
        {
            uint bound = prob.Bound(range);
            bool bit;
            if (code < bound)
            {
                range = bound;
                bit = false;
            }
            else
            {
                code -= bound;
                range -= bound;
                bit = true;
            }
            while (range < RangeCoder.Top)
            {
                range <<= 8;
                code = (code << 8) | Next();
            }
            Check();
            return bit;
        }

        /// <summary>A bit under <paramref name="prob"/>, which then moves towards it.</summary>
        public bool Bit(ref Prob prob)
        {
            bool bit = Get(prob);
            prob.Adapt(bit);
            return bit;
        }

        /// <summary>A bit under <paramref name="prob"/>, which stays as it is.</summary>
        public bool BitStatic(Prob prob)
        {
            return Get(prob);
        }

        /// <summary><paramref name="width"/> bits (0 to 64), least significant first, under
        /// <paramref name="tree"/>'s slots, which adapt.</summary>
        public ulong Bits(BitTree tree, byte width)
        {
            if (width > 64)
            {
                throw Fail(ErrorKind.OverWidth, (long)start + Math.Min(at, length));
            }
            ulong v = 0;
            for (int i = 0; i < width; i++)
            {
                if (Bit(ref tree.probs[BitTree.Slot(i, v)]))
                {
                    v |= 1UL << i;
                }
            }
            return v;
        }

        /// <summary>The byte of the frame the decoder has reached, for the position of a fault
        /// found in what it decoded.</summary>
        internal long Offset()
        {
            return (long)start + Math.Min(at, length);
        }

        /// <summary>Ends a stream that was zero-padded to a floor (the coded profile's CODE-5),
        /// once every bit is read: every byte not reached must be 0 (else trailing bytes, at the
        /// first that is not), and the code must be the interval's bottom (else not canonical).
        /// With <see cref="Finish"/>'s rules for a stream above its floor, a padded stream that
        /// passes is the one the encoder writes and pads. Returns the stream's length.</summary>
        internal int FinishPadded()
        {
            for (int i = at; i < length; i++)
            {
                if (bytes[start + i] != 0)
                {
                    throw Fail(ErrorKind.TrailingBytes, (long)start + i);
                }
            }
            if (code != 0)
            {
                throw Fail(ErrorKind.NonCanonical, (long)start + Math.Max(Math.Min(at, length) - 1, 0));
            }
            return length;
        }

        /// <summary>Ends the stream once every bit the layout holds is read: every byte must have
        /// been reached (else trailing bytes), the code must be the interval's bottom, which is
        /// what the encoder flushes, and a last zero byte is only the encoder's when it dropped as
        /// many zeros as it may (else not canonical). A stream that passes is the one stream the
        /// encoder writes for the bits read. Returns the stream's length.</summary>
        public int Finish()
        {
            if (at < length)
            {
                throw Fail(ErrorKind.TrailingBytes, (long)start + at);
            }
            if (code != 0)
            {
                throw Fail(ErrorKind.NonCanonical, (long)start + Math.Max(length - 1, 0));
            }
            if (length > 0 && bytes[start + length - 1] == 0 && at - length < RangeCoder.MaxImplicitZeros)
            {
                throw Fail(ErrorKind.NonCanonical, (long)start + length - 1);
            }
            return length;
        }
    }
}
