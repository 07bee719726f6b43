// Checked reads: of a frame's bytes (Reader), and of the bit stream of a packed body
// (BitReader). Both are structs passed by ref, so that decoding allocates nothing beyond the
// decoded values.
//
// WIRE-13: a count the remaining bytes cannot hold is a decode error, checked before anything is
// allocated (Count). WIRE-25: `truncated` is reported at the end of the input, every varint fault
// at the varint's first byte, any other fault at the first byte of the field.

using System;
using System.Runtime.InteropServices;

namespace Ackwire.Runtime
{
    /// <summary>A position-tracking reader over a frame's bytes; every read is checked.</summary>
    public struct Reader
    {
        readonly byte[] buf;
        int pos;

        /// <summary>A reader at the start of <paramref name="bytes"/>.</summary>
        public Reader(byte[] bytes)
        {
            buf = bytes;
            pos = 0;
        }

        /// <summary>
        /// A reader at byte <paramref name="offset"/> of <paramref name="bytes"/> (at most its
        /// length), whose faults name their offsets from the start: for a reader that took the
        /// bytes before it another way.
        /// </summary>
        public Reader(byte[] bytes, int offset)
        {
            buf = bytes;
            pos = Math.Max(0, Math.Min(offset, bytes.Length));
        }

        /// <summary>The offset of the next byte to read.</summary>
        public int Offset { get { return pos; } }

        /// <summary>The number of bytes left.</summary>
        public int Remaining { get { return buf.Length - pos; } }

        /// <summary>An error of <paramref name="kind"/> at byte <paramref name="offset"/>.</summary>
        public DecodeError Fail(ErrorKind kind, long offset)
        {
            return new DecodeError(kind, offset, -1);
        }

        int Need(int n)
        {
            if (n > buf.Length - pos)
            {
                throw Fail(ErrorKind.Truncated, buf.Length);
            }
            int at = pos;
            pos += n;
            return at;
        }

        ulong Raw(int n, bool bigEndian)
        {
            int at = Need(n);
            ulong v = 0;
            for (int i = 0; i < n; i++)
            {
                int b = bigEndian ? at + i : at + n - 1 - i;
                v = (v << 8) | buf[b];
            }
            return v;
        }

        /// <summary>A <c>u8</c>.</summary>
        public byte U8() { return buf[Need(1)]; }
        /// <summary>A <c>u16</c>.</summary>
        public ushort U16(bool bigEndian) { return (ushort)Raw(2, bigEndian); }
        /// <summary>A <c>u32</c>.</summary>
        public uint U32(bool bigEndian) { return (uint)Raw(4, bigEndian); }
        /// <summary>A <c>u64</c>.</summary>
        public ulong U64(bool bigEndian) { return Raw(8, bigEndian); }
        /// <summary>An <c>i8</c>.</summary>
        public sbyte I8() { return unchecked((sbyte)buf[Need(1)]); }
        /// <summary>An <c>i16</c>.</summary>
        public short I16(bool bigEndian) { return unchecked((short)Raw(2, bigEndian)); }
        /// <summary>An <c>i32</c>.</summary>
        public int I32(bool bigEndian) { return unchecked((int)Raw(4, bigEndian)); }
        /// <summary>An <c>i64</c>.</summary>
        public long I64(bool bigEndian) { return unchecked((long)Raw(8, bigEndian)); }

        /// <summary>A ranged unsigned integer of <paramref name="bytes"/> bytes: a value outside
        /// <paramref name="min"/>..=<paramref name="max"/> is <c>over_width</c>, at its first byte (WIRE-29).</summary>
        public ulong RangedUint(int bytes, bool bigEndian, ulong min, ulong max)
        {
            int at = pos;
            ulong v = Raw(bytes, bigEndian);
            if (v < min || v > max)
            {
                throw Fail(ErrorKind.OverWidth, at);
            }
            return v;
        }

        /// <summary>A ranged two's complement integer of <paramref name="bytes"/> bytes: a value
        /// outside <paramref name="min"/>..=<paramref name="max"/> is <c>over_width</c>, at its first byte (WIRE-29).</summary>
        public long RangedInt(int bytes, bool bigEndian, long min, long max)
        {
            int at = pos;
            ulong raw = Raw(bytes, bigEndian);
            int shift = 64 - 8 * bytes;
            long v = unchecked((long)(raw << shift)) >> shift;
            if (v < min || v > max)
            {
                throw Fail(ErrorKind.OverWidth, at);
            }
            return v;
        }

        /// <summary>A bool byte: 0 or 1, anything else <c>over_width</c> (WIRE-7).</summary>
        public bool Bool()
        {
            int at = pos;
            byte b = U8();
            if (b > 1)
            {
                throw Fail(ErrorKind.OverWidth, at);
            }
            return b == 1;
        }

        /// <summary>An <c>f32</c>, refusing NaN and infinities (<c>non_finite</c>, WIRE-6).</summary>
        public float F32(bool bigEndian)
        {
            int at = pos;
            float v = Bits.ToSingle((uint)Raw(4, bigEndian));
            if (float.IsNaN(v) || float.IsInfinity(v))
            {
                throw Fail(ErrorKind.NonFinite, at);
            }
            return v;
        }

        /// <summary>An <c>f64</c>, refusing NaN and infinities (<c>non_finite</c>, WIRE-6).</summary>
        public double F64(bool bigEndian)
        {
            int at = pos;
            double v = BitConverter.Int64BitsToDouble(unchecked((long)Raw(8, bigEndian)));
            if (double.IsNaN(v) || double.IsInfinity(v))
            {
                throw Fail(ErrorKind.NonFinite, at);
            }
            return v;
        }

        /// <summary>WIRE-2 to WIRE-4: an unsigned LEB128 of at most <paramref name="bits"/> bits, refusing a longer
        /// form than the value needs (<c>non_canonical_varint</c>) and a value past the width
        /// (<c>over_width</c>), both at the varint's first byte.</summary>
        public ulong Varint(int bits)
        {
            int start = pos;
            ulong value = 0;
            for (int i = 0; i < 10; i++)
            {
                byte b = U8();
                if (i == 9 && b > 1)
                {
                    // The tenth byte holds bit 63 only.
                    throw Fail(ErrorKind.OverWidth, start);
                }
                value |= (ulong)(b & 0x7f) << (7 * i);
                if ((b & 0x80) == 0)
                {
                    if (i > 0 && b == 0)
                    {
                        throw Fail(ErrorKind.NonCanonicalVarint, start);
                    }
                    if (bits < 64 && (value >> bits) != 0)
                    {
                        throw Fail(ErrorKind.OverWidth, start);
                    }
                    return value;
                }
            }
            throw Fail(ErrorKind.OverWidth, start);
        }

        /// <summary>A zigzag-mapped signed value of at most <paramref name="bits"/> bits (WIRE-5).</summary>
        public long Zigzag(int bits)
        {
            ulong n = Varint(bits);
            return unchecked((long)(n >> 1) ^ -(long)(n & 1));
        }

        /// <summary><paramref name="count"/> elements of at least <paramref name="min"/> bytes each,
        /// checked against the bytes left before anything is allocated
        /// (<c>count_too_large</c>, where the elements would begin; WIRE-13).</summary>
        public int Count(ulong count, int min)
        {
            ulong each = (ulong)Math.Max(min, 1);
            if (count > (ulong)Remaining / each)
            {
                throw Fail(ErrorKind.CountTooLarge, pos);
            }
            return (int)count;
        }

        /// <summary>A varint length and that many bytes (WIRE-15).</summary>
        public byte[] Bytes()
        {
            int n = Count(Varint(64), 1);
            return Take(n);
        }

        /// <summary>A varint of length + 1 and the bytes; 0 is absent (<c>null</c>; WIRE-15).</summary>
        public byte[] OptBytes()
        {
            ulong n = Varint(64);
            if (n == 0)
            {
                return null;
            }
            return Take(Count(n - 1, 1));
        }

        /// <summary>Consumes <paramref name="n"/> bytes where they lie (the frame's,
        /// <see cref="Frame"/>): returns the offset of the first. The input ending first is
        /// <c>truncated</c> at its end.</summary>
        internal int Skip(int n)
        {
            return Need(n);
        }

        /// <summary>The frame's bytes, which <see cref="Skip"/> leaves where they are.</summary>
        internal byte[] Frame { get { return buf; } }

        byte[] Take(int n)
        {
            int at = Need(n);
            byte[] b = new byte[n];
            Buffer.BlockCopy(buf, at, b, 0, n);
            return b;
        }

        /// <summary>Starts reading a packed body at the current byte.</summary>
        public BitReader BeginPacked()
        {
            return new BitReader(buf, pos);
        }

        /// <summary>Ends a packed body: checks its padding bits and moves past its bytes.</summary>
        public void EndPacked(ref BitReader b)
        {
            pos += b.Finish();
        }

        /// <summary>Refuses a constant field read from byte <paramref name="at"/> that holds
        /// another value than <paramref name="want"/> (<c>bad_constant</c>, at the field's start).</summary>
        public void ExpectUint(int at, ulong got, ulong want)
        {
            if (got != want)
            {
                throw Fail(ErrorKind.BadConstant, at);
            }
        }

        /// <summary>Refuses a signed constant field that holds another value (<c>bad_constant</c>, WIRE-10).</summary>
        public void ExpectInt(int at, long got, long want)
        {
            if (got != want)
            {
                throw Fail(ErrorKind.BadConstant, at);
            }
        }

        /// <summary>Refuses bytes left over after a frame (<c>trailing_bytes</c>, WIRE-17).</summary>
        public void Finish()
        {
            if (pos != buf.Length)
            {
                throw Fail(ErrorKind.TrailingBytes, pos);
            }
        }
    }

    /// <summary>A reader of a packed body's bits, least significant bit first (WIRE-18).</summary>
    public struct BitReader
    {
        readonly byte[] buf;
        readonly int start;
        long pos;

        /// <summary>A bit reader from byte <paramref name="start"/> of <paramref name="bytes"/>.</summary>
        public BitReader(byte[] bytes, int start)
        {
            buf = bytes;
            this.start = start;
            pos = 0;
        }

        /// <summary>The offset of the next bit, from the frame's start.</summary>
        public long BitOffset { get { return (long)start * 8 + pos; } }

        /// <summary>The number of bits left.</summary>
        public long Remaining { get { return (long)(buf.Length - start) * 8 - pos; } }

        /// <summary>An error of <paramref name="kind"/> at bit <paramref name="bit"/> of the frame.</summary>
        public DecodeError Fail(ErrorKind kind, long bit)
        {
            return new DecodeError(kind, bit / 8, bit);
        }

        /// <summary>An unsigned integer of <paramref name="width"/> bits (1 to 64).</summary>
        public ulong Uint(int width)
        {
            if (width > Remaining)
            {
                throw Fail(ErrorKind.Truncated, (long)buf.Length * 8);
            }
            long at = pos;
            pos += width;
            ulong value = 0;
            int got = 0;
            while (got < width)
            {
                long bit = at + got;
                int shift = (int)(bit % 8);
                int take = Math.Min(8 - shift, width - got);
                ulong chunk = (ulong)((buf[start + (int)(bit / 8)] >> shift) & ((1 << take) - 1));
                value |= chunk << got;
                got += take;
            }
            return value;
        }

        /// <summary>A two's complement integer of <paramref name="width"/> bits.</summary>
        public long Int(int width)
        {
            ulong v = Uint(width);
            if (width < 64 && (v >> (width - 1)) != 0)
            {
                return unchecked((long)(v | (ulong.MaxValue << width)));
            }
            return unchecked((long)v);
        }

        /// <summary>One bit.</summary>
        public bool Bool() { return Uint(1) == 1; }

        /// <summary>A ranged integer of a packed record: the value less <paramref name="min"/> in
        /// <paramref name="width"/> bits; a value past <paramref name="max"/> is <c>over_width</c>,
        /// at the field's first bit (WIRE-29).</summary>
        public long Ranged(int width, long min, long max)
        {
            long at = BitOffset;
            ulong offset = Uint(width);
            // max - min and min + offset in two's complement: exact, as max >= min.
            if (offset > unchecked((ulong)max - (ulong)min))
            {
                throw Fail(ErrorKind.OverWidth, at);
            }
            return unchecked((long)((ulong)min + offset));
        }

        /// <summary>A <c>bucket(w1, ..., wk)</c> value (WIRE-19): the bucket's index in unary (bucket
        /// i &lt; k − 1 as i one bits and a zero, the last as k − 1 one bits), at most k − 1 bits
        /// read, then the value less the bucket's base as a w_i-bit field. Buckets are offset
        /// (bucket i holds [base_i, base_i + 2^w_i), base_0 = 0), so every code is a distinct
        /// value: only <c>truncated</c> can fail. <paramref name="widths"/> is strictly
        /// increasing, each 0 to 64, the sum of 2^w_i at most 2^64 (the validator's rule).</summary>
        public ulong Bucket(byte[] widths)
        {
            int last = widths.Length - 1;
            int i = 0;
            ulong bucketBase = 0;
            while (i < last && Uint(1) == 1)
            {
                // Below 2^64: bucket i + 1 exists, and base_(i+1) + 2^w_(i+1) ≤ 2^64.
                bucketBase += 1UL << widths[i];
                i++;
            }
            return bucketBase + Uint(widths[i]);
        }

        /// <summary>A <c>zbucket(w1, ..., wk)</c> value: a bucket code of the zigzag mapping,
        /// unzigzag(u) = (u &gt;&gt; 1) ^ −(u &amp; 1).</summary>
        public long ZBucket(byte[] widths)
        {
            ulong u = Bucket(widths);
            return unchecked((long)(u >> 1) ^ -(long)(u & 1));
        }

        /// <summary>A <c>quat(bits)</c> value (WIRE-20): <c>largest</c> as a u2, then three
        /// <paramref name="bits"/>-bit two's complement components, refused unless canonical
        /// (<see cref="SmallestThree.Check"/>: <c>over_width</c>, then <c>non_canonical</c>), at
        /// the field's first bit.</summary>
        public SmallestThree Quat(int bits)
        {
            long at = BitOffset;
            byte largest = (byte)Uint(2);
            short a = (short)Int(bits);
            short b = (short)Int(bits);
            short c = (short)Int(bits);
            SmallestThree s = new SmallestThree(largest, a, b, c);
            ErrorKind? fault = SmallestThree.Check(s, bits);
            if (fault.HasValue)
            {
                throw Fail(fault.Value, at);
            }
            return s;
        }

        /// <summary>An <c>f32</c>, refusing NaN and infinities (<c>non_finite</c>, WIRE-6).</summary>
        public float F32()
        {
            long at = BitOffset;
            float v = Bits.ToSingle((uint)Uint(32));
            if (float.IsNaN(v) || float.IsInfinity(v))
            {
                throw Fail(ErrorKind.NonFinite, at);
            }
            return v;
        }

        /// <summary>An <c>f64</c>, refusing NaN and infinities (<c>non_finite</c>, WIRE-6).</summary>
        public double F64()
        {
            long at = BitOffset;
            double v = BitConverter.Int64BitsToDouble(unchecked((long)Uint(64)));
            if (double.IsNaN(v) || double.IsInfinity(v))
            {
                throw Fail(ErrorKind.NonFinite, at);
            }
            return v;
        }

        /// <summary><paramref name="count"/> elements of at least <paramref name="min"/> bits
        /// each, checked against the bits left before anything is allocated.</summary>
        public int Count(ulong count, int min)
        {
            ulong each = (ulong)Math.Max(min, 1);
            if (count > (ulong)Remaining / each)
            {
                throw Fail(ErrorKind.CountTooLarge, BitOffset);
            }
            return (int)count;
        }

        /// <summary>Refuses a constant field read from bit <paramref name="at"/> that holds
        /// another value than <paramref name="want"/> (<c>bad_constant</c>).</summary>
        public void ExpectUint(long at, ulong got, ulong want)
        {
            if (got != want)
            {
                throw Fail(ErrorKind.BadConstant, at);
            }
        }

        /// <summary>Refuses a signed constant field that holds another value (<c>bad_constant</c>, WIRE-10).</summary>
        public void ExpectInt(long at, long got, long want)
        {
            if (got != want)
            {
                throw Fail(ErrorKind.BadConstant, at);
            }
        }

        /// <summary>Checks the padding bits up to the next byte (WIRE-18; <c>reserved_bit</c> at the
        /// first set) and returns the body's size in bytes.</summary>
        public int Finish()
        {
            long end = (pos + 7) / 8 * 8;
            for (long i = pos; i < end; i++)
            {
                if (((buf[start + (int)(i / 8)] >> (int)(i % 8)) & 1) == 1)
                {
                    throw Fail(ErrorKind.ReservedBit, (long)start * 8 + i);
                }
            }
            return (int)(end / 8);
        }
    }

    /// <summary>Bit-level conversions of <c>f32</c> that .NET Standard 2.0 lacks, through an
    /// overlaid struct rather than BitConverter's arrays, so that they allocate nothing.</summary>
    public static class Bits
    {
        [StructLayout(LayoutKind.Explicit)]
        struct Overlay
        {
            [FieldOffset(0)] public uint U;
            [FieldOffset(0)] public float F;
        }

        /// <summary>The <c>f32</c> of these bits.</summary>
        public static float ToSingle(uint bits)
        {
            Overlay o = default(Overlay);
            o.U = bits;
            return o.F;
        }

        /// <summary>The bits of an <c>f32</c>.</summary>
        public static uint FromSingle(float v)
        {
            Overlay o = default(Overlay);
            o.F = v;
            return o.U;
        }
    }
}
