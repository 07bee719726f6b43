// What the bindings `ackwire gen --lang cs` writes for a `state` (spec/LANGUAGE.md, "Replicated
// state") call: the parts of an acked frame that are ACK-2's and the same for every state (its
// header kept into an AckedFrame, its little-endian integers read at once), and the arithmetic
// every group's fields share (an age, a step from the base's value, a coarser integer, a float's
// whole units, a quaternion's bits), each refusing what LANGUAGE.md's rule refuses. The generated
// code spells out each state's own fields; the rules live here once.
//
// Encoding refuses with an EncodeError (over_width at the field's path inside its change),
// applying with Inapplicable (the frame is then not applied at all). Arithmetic on a peer's values
// never wraps: a step or a product past its field's type is a refusal.

namespace Ackwire.Runtime.Sessions
{
    /// <summary>The rules every state's binding shares (LANGUAGE.md, "Replicated state").</summary>
    public static class StateRules
    {
        // ---- the acked session's constants, for those a spec does not declare ----

        /// <summary>SENT_RING of acked.wire: frames the server keeps per client.</summary>
        public const int DefaultSentRing = 32;
        /// <summary>HELD_RING of acked.wire: frame states the client keeps.</summary>
        public const int DefaultHeldRing = 64;
        /// <summary>EVENT_TTL of acked.wire: frames an unacknowledged event is sent in at most.</summary>
        public const ulong DefaultEventTtl = 60;
        /// <summary>CHECK_EVERY of acked.wire: a check every this many frames.</summary>
        public const ulong DefaultCheckEvery = 30;
        /// <summary>RELIABLE_ABOVE of acked.wire: a frame larger than this goes reliably.</summary>
        public const int DefaultReliableAbove = 1200;

        // ---- encoding a change: a field's wire value, or over_width ----

        /// <summary><c>over_width</c> at <paramref name="form"/>.<paramref name="field"/> (the field left out when null).</summary>
        public static EncodeError OverWidth(string form, string field)
        {
            EncodeError e = new EncodeError(ErrorKind.OverWidth);
            if (field != null)
            {
                e = e.Within(field);
            }
            return form == null ? e : e.Within(form);
        }

        /// <summary><c>invalid_condition</c> at <paramref name="field"/>: a record whose optional group and flags bit disagree, or that drops an optional group the base has.</summary>
        public static EncodeError Invalid(string field)
        {
            return new EncodeError(ErrorKind.InvalidCondition).Within(field);
        }

        /// <summary>
        /// The age a change carries for a group measured at <paramref name="measured"/>, in a
        /// frame of <paramref name="tick"/> (LANGUAGE.md: "the frame's tick less it ... present
        /// exactly when the age is not 0"): 0 for none; a tick after the frame's, or an age past
        /// <paramref name="max"/>, is <c>over_width</c> at <paramref name="field"/>.
        /// </summary>
        public static ulong AgeOf(uint tick, uint measured, ulong max, string field)
        {
            if (measured > tick || tick - measured > max)
            {
                throw new EncodeError(ErrorKind.OverWidth).Within(field);
            }
            return tick - measured;
        }

        /// <summary>Whether <paramref name="to"/> less <paramref name="from"/> lies within [<paramref name="lo"/>, <paramref name="hi"/>].</summary>
        public static bool StepFits(long to, long from, long lo, long hi)
        {
            long d = unchecked(to - from);
            // The difference overflows exactly when the operands' signs differ and the result's
            // differs from the first's; it then lies past every range a long holds.
            bool overflow = ((to ^ from) & (to ^ d)) < 0;
            return !overflow && d >= lo && d <= hi;
        }

        /// <summary>A step: <paramref name="to"/> less <paramref name="from"/>, past [<paramref name="lo"/>, <paramref name="hi"/>] <c>over_width</c> at <paramref name="form"/>.<paramref name="field"/>.</summary>
        public static long StepOf(long to, long from, long lo, long hi, string form, string field)
        {
            if (!StepFits(to, from, lo, hi))
            {
                throw OverWidth(form, field);
            }
            return to - from;
        }

        /// <summary>Whether <paramref name="to"/> less <paramref name="from"/> (unsigned) lies within [<paramref name="lo"/>, <paramref name="hi"/>].</summary>
        public static bool StepFits(ulong to, ulong from, long lo, long hi)
        {
            if (to >= from)
            {
                return hi >= 0 && to - from <= (ulong)hi;
            }
            return lo < 0 && from - to <= (ulong)(-(lo + 1)) + 1;
        }

        /// <summary>A step of unsigned values, as <see cref="StepOf(long, long, long, long, string, string)"/>.</summary>
        public static long StepOf(ulong to, ulong from, long lo, long hi, string form, string field)
        {
            if (!StepFits(to, from, lo, hi))
            {
                throw OverWidth(form, field);
            }
            return unchecked((long)(to - from));
        }

        /// <summary>Whether <paramref name="v"/> is a whole number of <paramref name="by"/> and the quotient lies within [<paramref name="lo"/>, <paramref name="hi"/>].</summary>
        public static bool CoarserFits(long v, long by, long lo, long hi)
        {
            return v % by == 0 && v / by >= lo && v / by <= hi;
        }

        /// <summary>A coarser integer: <paramref name="v"/> divided by <paramref name="by"/>, refused (<c>over_width</c>) when it does not divide or the quotient passes [<paramref name="lo"/>, <paramref name="hi"/>].</summary>
        public static long Coarser(long v, long by, long lo, long hi, string form, string field)
        {
            if (!CoarserFits(v, by, lo, hi))
            {
                throw OverWidth(form, field);
            }
            return v / by;
        }

        /// <summary>Whether unsigned <paramref name="v"/> is a whole number of <paramref name="by"/> at most <paramref name="hi"/> times.</summary>
        public static bool CoarserFits(ulong v, ulong by, ulong hi)
        {
            return v % by == 0 && v / by <= hi;
        }

        /// <summary>A coarser unsigned integer, as <see cref="Coarser(long, long, long, long, string, string)"/>.</summary>
        public static ulong Coarser(ulong v, ulong by, ulong hi, string form, string field)
        {
            if (!CoarserFits(v, by, hi))
            {
                throw OverWidth(form, field);
            }
            return v / by;
        }

        /// <summary>A value a narrower wire integer holds: <paramref name="v"/> within [<paramref name="lo"/>, <paramref name="hi"/>], else <c>over_width</c>.</summary>
        public static long Narrow(long v, long lo, long hi, string form, string field)
        {
            if (v < lo || v > hi)
            {
                throw OverWidth(form, field);
            }
            return v;
        }

        /// <summary>Whether a float holds <paramref name="v"/> units exactly: its magnitude below <paramref name="limit"/>.</summary>
        public static bool FloatFits(long v, long limit)
        {
            return v > -limit && v < limit;
        }

        /// <summary>
        /// The bits of the f32 of <paramref name="v"/> units of <paramref name="unit"/> (a power
        /// of two, so that the product is exact); a magnitude of <paramref name="limit"/> or more,
        /// which no f32 holds exactly, is <c>over_width</c> at <paramref name="form"/>.<paramref name="field"/>.
        /// </summary>
        public static int F32Of(long v, double unit, long limit, string form, string field)
        {
            if (!FloatFits(v, limit))
            {
                throw OverWidth(form, field);
            }
            return unchecked((int)Bits.FromSingle((float)(v * unit)));
        }

        /// <summary>The bits of the f64 of <paramref name="v"/> units of <paramref name="unit"/>, as <see cref="F32Of"/>.</summary>
        public static long F64Of(long v, double unit, long limit, string form, string field)
        {
            if (!FloatFits(v, limit))
            {
                throw OverWidth(form, field);
            }
            return System.BitConverter.DoubleToInt64Bits(v * unit);
        }

        /// <summary>Whether <paramref name="v"/> rounds to a whole number of <paramref name="scale"/> within [<paramref name="lo"/>, <paramref name="hi"/>] (NaN and the infinities as 0, as the codec's writer rounds them).</summary>
        public static bool QuantizedFits(double v, double scale, long lo, long hi)
        {
            double q = Quant.Round(v, scale);
            return q >= lo && q <= hi;
        }

        /// <summary>
        /// The wire integer of a quantized value held as a double (a nested group's field, as
        /// the codec holds it): rounded as the codec's writer rounds it, past [<paramref name="lo"/>,
        /// <paramref name="hi"/>] <c>over_width</c> at <paramref name="form"/>.<paramref name="field"/>.
        /// </summary>
        public static long Quantized(double v, double scale, long lo, long hi, string form, string field)
        {
            if (!QuantizedFits(v, scale, lo, hi))
            {
                throw OverWidth(form, field);
            }
            return (long)Quant.Round(v, scale);
        }

        // ---- applying a change: a field's value, or Inapplicable ----

        /// <summary>
        /// The whole number of units of the f32 whose bits are <paramref name="bits"/>, there
        /// being <paramref name="perValue"/> units to 1.0 (the unit's inverse, a power of two):
        /// LANGUAGE.md's "the value divided by s: a whole number below that bound, else the frame
        /// does not apply" (a magnitude of <paramref name="limit"/> or more, a fraction, NaN or an
        /// infinity is Inapplicable, saying <paramref name="why"/>).
        /// </summary>
        public static long WholeF32(int bits, double perValue, long limit, string why)
        {
            return Whole(Bits.ToSingle(unchecked((uint)bits)), perValue, limit, why);
        }

        /// <summary>The whole number of units of the f64 whose bits are <paramref name="bits"/>, as <see cref="WholeF32"/>.</summary>
        public static long WholeF64(long bits, double perValue, long limit, string why)
        {
            return Whole(System.BitConverter.Int64BitsToDouble(bits), perValue, limit, why);
        }

        static long Whole(double v, double perValue, long limit, string why)
        {
            double s = v * perValue;
            if (double.IsNaN(s) || double.IsInfinity(s) || s - System.Math.Truncate(s) != 0 || System.Math.Abs(s) >= limit)
            {
                throw new Inapplicable(why);
            }
            return (long)s;
        }

        /// <summary><paramref name="v"/>, within [<paramref name="lo"/>, <paramref name="hi"/>]; past it Inapplicable, saying <paramref name="why"/>.</summary>
        public static long InRange(long v, long lo, long hi, string why)
        {
            if (v < lo || v > hi)
            {
                throw new Inapplicable(why);
            }
            return v;
        }

        /// <summary><paramref name="a"/> plus <paramref name="b"/> within [<paramref name="lo"/>, <paramref name="hi"/>], the sum never wrapping; past it Inapplicable.</summary>
        public static long Sum(long a, long b, long lo, long hi, string why)
        {
            long s = unchecked(a + b);
            if (((a ^ s) & (b ^ s)) < 0 || s < lo || s > hi)
            {
                throw new Inapplicable(why);
            }
            return s;
        }

        /// <summary>Unsigned <paramref name="a"/> plus <paramref name="b"/> at most <paramref name="hi"/>, the sum never wrapping; past it Inapplicable.</summary>
        public static ulong Sum(ulong a, long b, ulong hi, string why)
        {
            ulong s;
            if (b >= 0)
            {
                s = unchecked(a + (ulong)b);
                if (s < a)
                {
                    throw new Inapplicable(why);
                }
            }
            else
            {
                ulong d = (ulong)(-(b + 1)) + 1;
                if (d > a)
                {
                    throw new Inapplicable(why);
                }
                s = a - d;
            }
            if (s > hi)
            {
                throw new Inapplicable(why);
            }
            return s;
        }

        /// <summary>
        /// The tick a group was measured at: the frame's <paramref name="tick"/> less the
        /// change's <paramref name="age"/> (ACK-33: the client records a pose at the tick it was
        /// true); before tick 0 Inapplicable, saying <paramref name="why"/>.
        /// </summary>
        public static uint MeasuredAt(uint tick, ulong age, string why)
        {
            if (age > tick)
            {
                throw new Inapplicable(why);
            }
            return (uint)(tick - age);
        }

        // ---- a quaternion's bits, as its packed record lays them ----

        /// <summary>
        /// A smallest-three quaternion of <paramref name="bits"/> bits a component as one
        /// integer, least significant bit first as a packed record writes it: the dropped
        /// component's index in 2 bits, then the three sent, each in <paramref name="bits"/> bits
        /// two's complement (LANGUAGE.md, <c>quat(B)</c>).
        /// </summary>
        public static ulong QuatBits(SmallestThree q, int bits)
        {
            ulong mask = (1UL << bits) - 1;
            return ((ulong)q.Largest & 3)
                | ((ulong)unchecked((long)q.A) & mask) << 2
                | ((ulong)unchecked((long)q.B) & mask) << (2 + bits)
                | ((ulong)unchecked((long)q.C) & mask) << (2 + 2 * bits);
        }

        /// <summary>The quaternion <see cref="QuatBits"/> gives <paramref name="v"/> for.</summary>
        public static SmallestThree QuatOf(ulong v, int bits)
        {
            return new SmallestThree((byte)(v & 3), Component(v >> 2, bits), Component(v >> (2 + bits), bits),
                Component(v >> (2 + 2 * bits), bits));
        }

        static short Component(ulong v, int bits)
        {
            long low = (long)(v & ((1UL << bits) - 1));
            return (short)(low >= 1L << (bits - 1) ? low - (1L << bits) : low);
        }

        /// <summary>Whether the quaternion of bits <paramref name="v"/> is one its packed record accepts (<see cref="SmallestThree.Check"/>).</summary>
        public static bool QuatValid(ulong v, int bits)
        {
            return SmallestThree.Check(QuatOf(v, bits), bits) == null;
        }

        // ---- reading a frame ----

        /// <summary>
        /// A frame's header, as read, into <paramref name="into"/>: everything but the changes,
        /// which are the caller's. ACK-4: flags bit 0, KEYFRAME, means the frame applies onto
        /// nothing (base_tick is then 0): a keyframe naming a base is
        /// <c>invalid_condition</c> at byte 5 (where base_tick starts), <c>base_tick</c>, thrown
        /// before <paramref name="into"/> is touched.
        /// </summary>
        public static void KeepHeader<C, E>(AckedFrame<C, E> into, uint tick, uint baseTick, uint lastSeq, byte inputBuffer,
            bool keyframe, uint? check, ushort[] removed, uint? firstSerial, E[] events)
        {
            if (keyframe && baseTick != 0)
            {
                throw new DecodeError(ErrorKind.InvalidCondition, 5, -1).Within("base_tick");
            }
            into.Tick = tick;
            into.BaseTick = baseTick;
            into.LastSeq = lastSeq;
            into.InputBuffer = inputBuffer;
            into.Keyframe = keyframe;
            into.Check = check;
            into.Removed = removed;
            into.FirstSerial = firstSerial ?? 0;
            into.Events = events;
        }

        /// <summary>
        /// A packed code past what its byte-aligned field holds (an id past 65,535, a step past
        /// an i16): <c>over_width</c> at <paramref name="at"/>, the packed body's first byte, as
        /// the Rust codec reports it (the path is the reader's).
        /// </summary>
        public static DecodeError Past(long at)
        {
            return new DecodeError(ErrorKind.OverWidth, at, -1);
        }

        /// <summary>The little-endian u16 at <paramref name="p"/> (the caller checked the length).</summary>
        public static ushort U16(byte[] b, int p)
        {
            return (ushort)(b[p] | b[p + 1] << 8);
        }

        /// <summary>The little-endian u32 at <paramref name="p"/> (the caller checked the length).</summary>
        public static uint U32(byte[] b, int p)
        {
            return (uint)(b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24);
        }

        /// <summary>The little-endian u64 at <paramref name="p"/> (the caller checked the length).</summary>
        public static ulong U64(byte[] b, int p)
        {
            return U32(b, p) | (ulong)U32(b, p + 4) << 32;
        }

        /// <summary>Whether the f32 of <paramref name="bits"/> is finite.</summary>
        public static bool Finite32(int bits)
        {
            // All exponent bits set: an infinity or a NaN.
            return (bits & 0x7f800000) != 0x7f800000;
        }

        /// <summary>Whether the f64 of <paramref name="bits"/> is finite.</summary>
        public static bool Finite64(long bits)
        {
            return (bits & 0x7ff0000000000000L) != 0x7ff0000000000000L;
        }

        /// <summary>FNV-1a 32 <paramref name="h"/> continued over the <paramref name="n"/> low bytes of <paramref name="v"/>, least significant first (a little-endian field of the check's bytes).</summary>
        public static uint Hash(uint h, ulong v, int n)
        {
            unchecked
            {
                for (int i = 0; i < n; i++)
                {
                    h = (h ^ (uint)(v & 0xff)) * Fnv.Prime;
                    v >>= 8;
                }
            }
            return h;
        }
    }
}
