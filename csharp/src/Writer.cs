// Checked writes: of a frame's bytes (Writer), and of the bit stream of a packed body
// (BitWriter), with the quantization and length helpers encoders share.
//
// An encoder refuses what no decoder would accept (PROTOCOL.md, `encode`): a value past its
// field's width, a non-finite float, a bit set with a reserved bit or a bit without the bit it
// requires, an optional field given when its condition fails or missing when it holds.

using System;

namespace Ackwire.Runtime
{
    /// <summary>A growing buffer of a frame's bytes.</summary>
    public sealed class Writer
    {
        byte[] buf;
        int len;

        /// <summary>A writer with room for <paramref name="capacity"/> bytes.</summary>
        public Writer(int capacity)
        {
            buf = new byte[Math.Max(capacity, 1)];
            len = 0;
        }

        /// <summary>The number of bytes written.</summary>
        public int Length { get { return len; } }

        /// <summary>An error of <paramref name="kind"/>.</summary>
        public EncodeError Fail(ErrorKind kind)
        {
            return new EncodeError(kind);
        }

        void Room(int n)
        {
            if (buf.Length - len < n)
            {
                byte[] grown = new byte[Math.Max(buf.Length * 2, len + n)];
                Buffer.BlockCopy(buf, 0, grown, 0, len);
                buf = grown;
            }
        }

        void Raw(ulong v, int n, bool bigEndian)
        {
            Room(n);
            for (int i = 0; i < n; i++)
            {
                int shift = bigEndian ? 8 * (n - 1 - i) : 8 * i;
                buf[len + i] = (byte)(v >> shift);
            }
            len += n;
        }

        /// <summary>A <c>u8</c>.</summary>
        public void U8(byte v) { Raw(v, 1, false); }
        /// <summary>A <c>u16</c>.</summary>
        public void U16(ushort v, bool bigEndian) { Raw(v, 2, bigEndian); }
        /// <summary>A <c>u32</c>.</summary>
        public void U32(uint v, bool bigEndian) { Raw(v, 4, bigEndian); }
        /// <summary>A <c>u64</c>.</summary>
        public void U64(ulong v, bool bigEndian) { Raw(v, 8, bigEndian); }
        /// <summary>An <c>i8</c>.</summary>
        public void I8(sbyte v) { Raw(unchecked((byte)v), 1, false); }
        /// <summary>An <c>i16</c>.</summary>
        public void I16(short v, bool bigEndian) { Raw(unchecked((ushort)v), 2, bigEndian); }
        /// <summary>An <c>i32</c>.</summary>
        public void I32(int v, bool bigEndian) { Raw(unchecked((uint)v), 4, bigEndian); }
        /// <summary>An <c>i64</c>.</summary>
        public void I64(long v, bool bigEndian) { Raw(unchecked((ulong)v), 8, bigEndian); }
        /// <summary>A bool byte, 0 or 1.</summary>
        public void Bool(bool v) { Raw(v ? 1UL : 0UL, 1, false); }

        /// <summary>An <c>f32</c>, refusing NaN and infinities (WIRE-6).</summary>
        public void F32(float v, bool bigEndian)
        {
            Wire.Finite(v);
            Raw(Bits.FromSingle(v), 4, bigEndian);
        }

        /// <summary>An <c>f64</c>, refusing NaN and infinities.</summary>
        public void F64(double v, bool bigEndian)
        {
            Wire.Finite(v);
            Raw(unchecked((ulong)BitConverter.DoubleToInt64Bits(v)), 8, bigEndian);
        }

        /// <summary>An unsigned LEB128 of at most <paramref name="bits"/> bits, in its shortest form (WIRE-2 to WIRE-4).</summary>
        public void Varint(int bits, ulong v)
        {
            Wire.Width(v, bits);
            Room(10);
            while (v >= 0x80)
            {
                buf[len++] = (byte)(v | 0x80);
                v >>= 7;
            }
            buf[len++] = (byte)v;
        }

        /// <summary>A signed value of at most <paramref name="bits"/> bits, zigzag-mapped, as a varint (WIRE-5).</summary>
        public void Zigzag(int bits, long v)
        {
            if (bits < 64 && (v < -(1L << (bits - 1)) || v >= (1L << (bits - 1))))
            {
                throw Fail(ErrorKind.OverWidth);
            }
            Varint(64, Lengths.Zigzag(v));
        }

        /// <summary>A varint length and the bytes (WIRE-15).</summary>
        public void Bytes(byte[] v)
        {
            Varint(64, (ulong)v.Length);
            Put(v);
        }

        /// <summary>A varint of length + 1 and the bytes; 0 for absent (<c>null</c>).</summary>
        public void OptBytes(byte[] v)
        {
            if (v == null)
            {
                Varint(64, 0);
                return;
            }
            Varint(64, (ulong)v.Length + 1);
            Put(v);
        }

        /// <summary>Appends <paramref name="v"/> as it is.</summary>
        internal void Put(byte[] v)
        {
            Room(v.Length);
            Buffer.BlockCopy(v, 0, buf, len, v.Length);
            len += v.Length;
        }

        /// <summary>Writes a packed body: the bits of <paramref name="b"/>, zero-padded to a byte.</summary>
        public void Packed(BitWriter b)
        {
            byte[] bytes = b.ToArray();
            Put(bytes);
        }

        /// <summary>The bytes written.</summary>
        public byte[] ToArray()
        {
            byte[] out_ = new byte[len];
            Buffer.BlockCopy(buf, 0, out_, 0, len);
            return out_;
        }
    }

    /// <summary>A writer of a packed body's bits, least significant bit first (WIRE-18).</summary>
    public sealed class BitWriter
    {
        byte[] buf = new byte[8];
        long pos;

        /// <summary>The number of bits written.</summary>
        public long BitLength { get { return pos; } }

        /// <summary>An error of <paramref name="kind"/>.</summary>
        public EncodeError Fail(ErrorKind kind)
        {
            return new EncodeError(kind);
        }

        /// <summary>An unsigned integer of <paramref name="width"/> bits, refusing a wider value.</summary>
        public void Uint(int width, ulong v)
        {
            Wire.Width(v, width);
            long need = (pos + width + 7) / 8;
            if (need > buf.Length)
            {
                byte[] grown = new byte[Math.Max(buf.Length * 2, (int)need)];
                Buffer.BlockCopy(buf, 0, grown, 0, buf.Length);
                buf = grown;
            }
            for (int i = 0; i < width; i++)
            {
                if (((v >> i) & 1) == 1)
                {
                    long bit = pos + i;
                    buf[bit / 8] |= (byte)(1 << (int)(bit % 8));
                }
            }
            pos += width;
        }

        /// <summary>A ranged integer: the value less <paramref name="min"/> in <paramref name="width"/>
        /// bits, refused outside <paramref name="min"/>..=<paramref name="max"/> (<c>over_width</c>, WIRE-29).</summary>
        public void Ranged(int width, long min, long max, long v)
        {
            Wire.InRange(v, min, max);
            Uint(width, unchecked((ulong)v - (ulong)min));
        }

        /// <summary>A ranged unsigned integer: the value less <paramref name="min"/> in
        /// <paramref name="width"/> bits, refused outside the range (<c>over_width</c>, WIRE-29).</summary>
        public void Ranged(int width, long min, long max, ulong v)
        {
            Wire.InRange(v, min, max);
            Uint(width, unchecked(v - (ulong)min));
        }

        /// <summary>A two's complement integer of <paramref name="width"/> bits, refusing one out of range.</summary>
        public void Int(int width, long v)
        {
            if (width < 64 && (v < -(1L << (width - 1)) || v >= (1L << (width - 1))))
            {
                throw Fail(ErrorKind.OverWidth);
            }
            ulong raw = unchecked((ulong)v);
            Uint(width, width < 64 ? raw & ((1UL << width) - 1) : raw);
        }

        /// <summary>One bit.</summary>
        public void Bool(bool v) { Uint(1, v ? 1UL : 0UL); }

        /// <summary>A <c>bucket(w1, ..., wk)</c> value: the first bucket that holds it, its
        /// index in unary (i one bits and a zero, no zero after the last bucket's), then the
        /// value less the bucket's base in w_i bits; refusing a value past the last bucket
        /// (<c>over_width</c>).</summary>
        public void Bucket(byte[] widths, ulong v)
        {
            int i = Buckets.Of(widths, v);
            for (int k = 0; k < i; k++)
            {
                Uint(1, 1);
            }
            if (i < widths.Length - 1)
            {
                Uint(1, 0);
            }
            Uint(widths[i], v - Buckets.Base(widths, i));
        }

        /// <summary>A <c>zbucket(w1, ..., wk)</c> value: its zigzag mapping as a bucket code.</summary>
        public void ZBucket(byte[] widths, long v)
        {
            Bucket(widths, Lengths.Zigzag(v));
        }

        /// <summary>A <c>quat(bits)</c> value, refusing one the canonical rules refuse
        /// (<see cref="SmallestThree.Check"/>: <c>over_width</c> or <c>non_canonical</c>): no
        /// decoder would accept it.</summary>
        public void Quat(int bits, SmallestThree v)
        {
            ErrorKind? fault = SmallestThree.Check(v, bits);
            if (fault.HasValue)
            {
                throw Fail(fault.Value);
            }
            Uint(2, v.Largest);
            Int(bits, v.A);
            Int(bits, v.B);
            Int(bits, v.C);
        }

        /// <summary>An <c>f32</c>, refusing NaN and infinities (WIRE-6).</summary>
        public void F32(float v)
        {
            Wire.Finite(v);
            Uint(32, Bits.FromSingle(v));
        }

        /// <summary>An <c>f64</c>, refusing NaN and infinities.</summary>
        public void F64(double v)
        {
            Wire.Finite(v);
            Uint(64, unchecked((ulong)BitConverter.DoubleToInt64Bits(v)));
        }

        /// <summary>The bits written, zero-padded to a whole byte.</summary>
        public byte[] ToArray()
        {
            byte[] out_ = new byte[(pos + 7) / 8];
            Buffer.BlockCopy(buf, 0, out_, 0, out_.Length);
            return out_;
        }
    }

    /// <summary>The checks encoders share.</summary>
    public static class Wire
    {
        /// <summary>Refuses <paramref name="v"/> past <paramref name="bits"/> bits (<c>over_width</c>).</summary>
        public static void Width(ulong v, int bits)
        {
            if (bits < 64 && (v >> bits) != 0)
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
        }

        /// <summary>A list's length as a count of <paramref name="bits"/> bits, refused past them.</summary>
        public static ulong Count(int length, int bits)
        {
            Width((ulong)length, bits);
            return (ulong)length;
        }

        /// <summary>Refuses a ranged integer outside <paramref name="min"/>..=<paramref name="max"/>
        /// (<c>over_width</c>, WIRE-29).</summary>
        public static void InRange(long v, long min, long max)
        {
            if (v < min || v > max)
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
        }

        /// <summary>Refuses a ranged unsigned integer outside <paramref name="min"/>..=<paramref name="max"/>
        /// (<c>over_width</c>, WIRE-29).</summary>
        public static void InRange(ulong v, long min, long max)
        {
            if (max < 0 || v > (ulong)max || (min > 0 && v < (ulong)min))
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
        }

        /// <summary>Refuses NaN and infinities (<c>non_finite</c>).</summary>
        public static void Finite(double v)
        {
            if (double.IsNaN(v) || double.IsInfinity(v))
            {
                throw new EncodeError(ErrorKind.NonFinite);
            }
        }

        /// <summary>An optional field is given exactly when its condition holds
        /// (<c>invalid_condition</c> otherwise).</summary>
        public static void Presence(bool given, bool holds)
        {
            if (given != holds)
            {
                throw new EncodeError(ErrorKind.InvalidCondition);
            }
        }
    }

    /// <summary>Quantization: value = wire × NUM / DEN; wire = round(value ÷ (NUM / DEN)),
    /// halves away from zero, a non-finite value as 0, refused past the wire integer's range.</summary>
    public static class Quant
    {
        /// <summary>The wire integer of <paramref name="value"/> before its range is checked.</summary>
        public static double Round(double value, double scale)
        {
            if (double.IsNaN(value) || double.IsInfinity(value))
            {
                return 0.0;
            }
            return Math.Round(value / scale, MidpointRounding.AwayFromZero);
        }

        /// <summary>A signed wire integer within [<paramref name="min"/>, <paramref name="max"/>].</summary>
        public static long Int(double value, double scale, long min, long max)
        {
            double q = Round(value, scale);
            // Compared as doubles: min and max are exact in a double up to 2^53, and past it q
            // (a whole number) stays outside the range where a cast would saturate.
            if (q < (double)min || q > (double)max || q >= 9223372036854775808.0)
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
            return (long)q;
        }

        /// <summary>An unsigned wire integer at most <paramref name="max"/>.</summary>
        public static ulong Uint(double value, double scale, ulong max)
        {
            double q = Round(value, scale);
            if (q < 0.0 || q > (double)max || q >= 18446744073709551616.0)
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
            return (ulong)q;
        }
    }

    /// <summary>The buckets of a <c>bucket(w1, ..., wk)</c> code: bucket i holds
    /// [base_i, base_i + 2^w_i), base_0 = 0, base_(i+1) = base_i + 2^w_i.</summary>
    public static class Buckets
    {
        /// <summary>base_<paramref name="i"/>.</summary>
        public static ulong Base(byte[] widths, int i)
        {
            ulong b = 0;
            for (int k = 0; k < i; k++)
            {
                b += 1UL << widths[k];
            }
            return b;
        }

        /// <summary>The first bucket holding <paramref name="v"/>, refusing a value past the
        /// last (<c>over_width</c>).</summary>
        public static int Of(byte[] widths, ulong v)
        {
            ulong b = 0;
            for (int i = 0; i < widths.Length; i++)
            {
                // v ≥ b here: every smaller value was held by an earlier bucket.
                ulong rel = v - b;
                if (widths[i] >= 64 || (rel >> widths[i]) == 0)
                {
                    return i;
                }
                ulong next = b + (1UL << widths[i]);
                if (next < b)
                {
                    break;
                }
                b = next;
            }
            throw new EncodeError(ErrorKind.OverWidth);
        }

        /// <summary>The number of bits of <paramref name="v"/>'s code: the unary index (i + 1
        /// bits, k − 1 for the last bucket) and w_i; for a value past the last bucket, which
        /// the writer refuses, the last bucket's.</summary>
        public static int BitLen(byte[] widths, ulong v)
        {
            int last = widths.Length - 1;
            int i = last;
            ulong b = 0;
            for (int k = 0; k < widths.Length; k++)
            {
                if (widths[k] >= 64 || ((v - b) >> widths[k]) == 0)
                {
                    i = k;
                    break;
                }
                ulong next = b + (1UL << widths[k]);
                if (next < b)
                {
                    break;
                }
                b = next;
            }
            return (i < last ? i + 1 : last) + widths[i];
        }

        /// <summary>The number of bits of a <c>zbucket</c> value's code.</summary>
        public static int ZBitLen(byte[] widths, long v)
        {
            return BitLen(widths, Lengths.Zigzag(v));
        }
    }

    /// <summary>Sizes of variable-length values, for encoded lengths.</summary>
    public static class Lengths
    {
        /// <summary>The number of bytes of <paramref name="v"/> as a varint.</summary>
        public static int Varint(ulong v)
        {
            int n = 1;
            while (v >= 0x80)
            {
                v >>= 7;
                n++;
            }
            return n;
        }

        /// <summary>The zigzag mapping of <paramref name="v"/>.</summary>
        public static ulong Zigzag(long v)
        {
            return unchecked((ulong)((v << 1) ^ (v >> 63)));
        }

        /// <summary>The number of bytes of a <c>bytes</c> field.</summary>
        public static int Bytes(byte[] v)
        {
            return Varint((ulong)v.Length) + v.Length;
        }

        /// <summary>The number of bytes of a <c>bytes?</c> field.</summary>
        public static int OptBytes(byte[] v)
        {
            return v == null ? 1 : Varint((ulong)v.Length + 1) + v.Length;
        }

        /// <summary>The number of bytes of a packed body of <paramref name="bits"/> bits.</summary>
        public static int Padded(long bits)
        {
            return (int)((bits + 7) / 8);
        }
    }

    /// <summary>The running key of a list ascending by value or by a record's key: each after
    /// the first is carried as its difference from the previous one, at least 1
    /// (<c>not_ascending</c> on 0), and the sum stays within the key's range
    /// (<c>over_width</c>). In a packed record the same (issue 19: "first absolute, then
    /// differences &gt;= 1 (0 is not_ascending, at the element's bit; a sum past the type's
    /// range is over_width)"), where a <c>bucket(...)</c> key's range is its largest value,
    /// not a power of two (<see cref="UpTo"/>).</summary>
    public struct Ascending
    {
        readonly ulong max;
        bool hasPrev;
        ulong prev;

        /// <summary>A running key of <paramref name="bits"/> bits, before the first element.</summary>
        public Ascending(int bits)
        {
            max = bits < 64 ? (1UL << bits) - 1 : ulong.MaxValue;
            hasPrev = false;
            prev = 0;
        }

        Ascending(ulong max)
        {
            this.max = max;
            hasPrev = false;
            prev = 0;
        }

        /// <summary>A running key of values 0 to <paramref name="max"/> (a bucket code's
        /// largest value), before the first element.</summary>
        public static Ascending UpTo(ulong max)
        {
            return new Ascending(max);
        }

        /// <summary>The key of the element whose difference <paramref name="delta"/> was read
        /// from byte <paramref name="at"/>.</summary>
        public ulong Next(ref Reader r, int at, ulong delta)
        {
            ErrorKind? fault = Advance(delta);
            if (fault.HasValue)
            {
                throw r.Fail(fault.Value, at);
            }
            return prev;
        }

        /// <summary>The key of the element of a packed list whose difference
        /// <paramref name="delta"/> was read from bit <paramref name="at"/>: the same rules,
        /// the fault at that bit.</summary>
        public ulong Next(ref BitReader b, long at, ulong delta)
        {
            ErrorKind? fault = Advance(delta);
            if (fault.HasValue)
            {
                throw b.Fail(fault.Value, at);
            }
            return prev;
        }

        ErrorKind? Advance(ulong delta)
        {
            ulong v = delta;
            if (hasPrev)
            {
                if (delta == 0)
                {
                    return ErrorKind.NotAscending;
                }
                v = prev + delta;
                if (v < prev)
                {
                    return ErrorKind.OverWidth;
                }
            }
            if (v > max)
            {
                return ErrorKind.OverWidth;
            }
            hasPrev = true;
            prev = v;
            return null;
        }

        /// <summary>The difference to write for key <paramref name="v"/>, refusing a key not
        /// above the previous one.</summary>
        public ulong Delta(ulong v)
        {
            if (v > max)
            {
                throw new EncodeError(ErrorKind.OverWidth);
            }
            ulong delta = v;
            if (hasPrev)
            {
                if (!(v > prev))
                {
                    throw new EncodeError(ErrorKind.NotAscending);
                }
                delta = v - prev;
            }
            hasPrev = true;
            prev = v;
            return delta;
        }

        /// <summary>The difference <paramref name="v"/> would be written as, for a length.</summary>
        public ulong Step(ulong v)
        {
            ulong delta = hasPrev && v > prev ? v - prev : v;
            hasPrev = true;
            prev = v;
            return delta;
        }
    }
}
