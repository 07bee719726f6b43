// The value of a `quat(B)` field: a unit quaternion sent as smallest three (issue 19, section 1
// of the shared spec), kept as the integers on the wire rather than floats, so that every
// language agrees on it bit for bit.
//
// Wire, in a packed body's bit stream: `largest` as a u2 (0 = x, 1 = y, 2 = z, 3 = w: the
// component dropped), then the other three in x, y, z, w order skipping the dropped one, each a
// two's complement iB; 2 + 3B bits. With R = 2^(B-1) − 1 a component is q × (1/√2) / R.
//
// The canonical rules, checked in integers only and in this order (Check), on decode and on
// encode alike:
// 1. `largest` is any of 0..=3;
// 2. every sent component lies in [−R, R] ("the raw value −2^(B−1) is over_width");
// 3. with S the sum of their squares and D = 2R² − S (the dropped component squared, in the
//    same units), a sent component whose index is below `largest` has its square < D, one
//    above it ≤ D: "the dropped component is the one of largest magnitude, the lowest index on
//    a tie, and it is made non-negative, so it is never sent" (non_canonical otherwise).

using System;

namespace Ackwire.Runtime
{
    /// <summary>A unit quaternion as smallest three: the index of the dropped (largest)
    /// component and the other three, in x, y, z, w order skipping it, as B-bit integers. The
    /// JSON form is <c>{"largest": 2, "rest": [12, -4, 255]}</c>.</summary>
    public struct SmallestThree : IEquatable<SmallestThree>
    {
        /// <summary>The component dropped: 0 = x, 1 = y, 2 = z, 3 = w.</summary>
        public byte Largest;
        /// <summary>The first component sent.</summary>
        public short A;
        /// <summary>The second component sent.</summary>
        public short B;
        /// <summary>The third component sent.</summary>
        public short C;

        /// <summary>The value of these integers.</summary>
        public SmallestThree(byte largest, short a, short b, short c)
        {
            Largest = largest;
            A = a;
            B = b;
            C = c;
        }

        /// <summary>The identity rotation (0, 0, 0, 1): w dropped, the rest 0.</summary>
        public static SmallestThree Identity { get { return new SmallestThree(3, 0, 0, 0); } }

        /// <summary>Sent component <paramref name="i"/> (0 to 2).</summary>
        public short Rest(int i)
        {
            return i == 0 ? A : i == 1 ? B : C;
        }

        /// <summary>R = 2^(B−1) − 1, the largest magnitude of a sent component of
        /// <paramref name="bits"/> bits (2 to 16).</summary>
        public static int Range(int bits)
        {
            return (1 << (bits - 1)) - 1;
        }

        /// <summary>The number of bits of a <c>quat(bits)</c> field: 2 + 3 × bits.</summary>
        public static int BitLen(int bits)
        {
            return 2 + 3 * bits;
        }

        /// <summary>What the canonical rules find wrong with <paramref name="s"/> as a
        /// <c>quat(bits)</c> value, in their order: <c>OverWidth</c> for a <c>largest</c> past 3
        /// or a component outside [−R, R], <c>NonCanonical</c> for a sent component larger than
        /// the dropped one (or as large, below it); <c>null</c> when it passes.</summary>
        public static ErrorKind? Check(SmallestThree s, int bits)
        {
            if (s.Largest > 3)
            {
                return ErrorKind.OverWidth;
            }
            long r = Range(bits);
            for (int i = 0; i < 3; i++)
            {
                long q = s.Rest(i);
                if (q < -r || q > r)
                {
                    return ErrorKind.OverWidth;
                }
            }
            return Failing(s.Largest, s.A, s.B, s.C, r) < 0 ? (ErrorKind?)null : ErrorKind.NonCanonical;
        }

        /// <summary>Rule 3: the sent component (0 to 2) of largest magnitude that breaks it, the
        /// lowest on a tie, or −1 when none does. In longs: 2R² is past an int for B = 16.</summary>
        static int Failing(int largest, long a, long b, long c, long r)
        {
            long d = 2 * r * r - (a * a + b * b + c * c);
            int worst = -1;
            long worstMag = -1;
            for (int i = 0; i < 3; i++)
            {
                long q = i == 0 ? a : i == 1 ? b : c;
                int j = i < largest ? i : i + 1;
                bool ok = j < largest ? q * q < d : q * q <= d;
                long mag = Math.Abs(q);
                if (!ok && mag > worstMag)
                {
                    worst = i;
                    worstMag = mag;
                }
            }
            return worst;
        }

        /// <summary>The smallest three of quaternion (<paramref name="x"/>, <paramref name="y"/>,
        /// <paramref name="z"/>, <paramref name="w"/>) at <paramref name="bits"/> bits a
        /// component, in doubles as every language does it: normalised (a zero or non-finite
        /// norm gives the identity); <c>largest</c> the index of the largest magnitude, the
        /// lowest on a tie; all four negated when that one is negative; each sent component
        /// <c>round(c × √2 × R)</c>, halves away from zero, clamped to [−R, R]; then, while
        /// rule 3 fails, the failing component of largest magnitude (the lowest on a tie)
        /// moved one step toward zero. The result always passes <see cref="Check"/>.</summary>
        public static SmallestThree FromXyzw(float x, float y, float z, float w, int bits)
        {
            double[] c = { x, y, z, w };
            double norm = Math.Sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
            if (norm == 0.0 || double.IsNaN(norm) || double.IsInfinity(norm))
            {
                return Identity;
            }
            int largest = 0;
            for (int i = 0; i < 4; i++)
            {
                c[i] /= norm;
                if (Math.Abs(c[i]) > Math.Abs(c[largest]))
                {
                    largest = i;
                }
            }
            bool negate = c[largest] < 0.0;
            long r = Range(bits);
            double factor = Math.Sqrt(2.0) * r;
            long[] q = new long[3];
            int k = 0;
            for (int j = 0; j < 4; j++)
            {
                if (j == largest)
                {
                    continue;
                }
                double v = negate ? -c[j] : c[j];
                double rounded = Math.Round(v * factor, MidpointRounding.AwayFromZero);
                q[k++] = (long)Math.Max(-r, Math.Min(r, rounded));
            }
            // Each step lowers S and so raises D: it ends, at the latest with all three 0.
            for (int f = Failing(largest, q[0], q[1], q[2], r); f >= 0; f = Failing(largest, q[0], q[1], q[2], r))
            {
                q[f] += q[f] > 0 ? -1 : 1;
            }
            return new SmallestThree((byte)largest, (short)q[0], (short)q[1], (short)q[2]);
        }

        /// <summary>The quaternion of this value at <paramref name="bits"/> bits a component, as
        /// every language computes it: each sent component <c>q × (1/√2 / R)</c> in doubles,
        /// the dropped one <c>√max(0, 1 − the sum of their squares)</c>, each then rounded to
        /// <c>float</c>.</summary>
        public void ToXyzw(int bits, out float x, out float y, out float z, out float w)
        {
            double scale = FracOneSqrtTwo / Range(bits);
            double a = A * scale;
            double b = B * scale;
            double c = C * scale;
            double dropped = Math.Sqrt(Math.Max(0.0, 1.0 - (a * a + b * b + c * c)));
            int largest = Largest & 3;
            x = (float)(largest == 0 ? dropped : a);
            y = (float)(largest == 1 ? dropped : largest == 0 ? a : b);
            z = (float)(largest == 2 ? dropped : largest == 3 ? c : b);
            w = (float)(largest == 3 ? dropped : c);
        }

        /// <summary>1/√2 to the nearest double (Rust's <c>FRAC_1_SQRT_2</c>).</summary>
        public const double FracOneSqrtTwo = 0.707106781186547524400844362104849039;

        /// <summary>Writes the JSON form, <c>{"largest": 2, "rest": [12, -4, 255]}</c>.</summary>
        public static void ToJson(JsonWriter j, SmallestThree s)
        {
            j.BeginObject();
            j.Name("largest");
            j.Uint(s.Largest);
            j.Name("rest");
            j.BeginArray();
            j.Int(s.A);
            j.Int(s.B);
            j.Int(s.C);
            j.EndArray();
            j.EndObject();
        }

        /// <summary>Reads the JSON form: <c>largest</c> a u8, <c>rest</c> three i16s. Whether
        /// the value is canonical is the encoder's to check, as for any other value.</summary>
        public static SmallestThree FromJson(JsonValue v)
        {
            byte largest;
            try
            {
                largest = (byte)Json.Uint(Json.Member(v, "largest"), byte.MaxValue);
            }
            catch (JsonError e)
            {
                throw e.Within("largest");
            }
            short[] rest = new short[3];
            try
            {
                System.Collections.Generic.List<JsonValue> items = Json.Array(Json.Member(v, "rest"));
                if (items.Count != 3)
                {
                    throw new JsonError("expected 3 components");
                }
                for (int i = 0; i < 3; i++)
                {
                    try
                    {
                        rest[i] = (short)Json.Int(items[i], short.MinValue, short.MaxValue);
                    }
                    catch (JsonError e)
                    {
                        throw e.Within(i);
                    }
                }
            }
            catch (JsonError e)
            {
                throw e.Within("rest");
            }
            return new SmallestThree(largest, rest[0], rest[1], rest[2]);
        }

        /// <inheritdoc/>
        public bool Equals(SmallestThree other)
        {
            return Largest == other.Largest && A == other.A && B == other.B && C == other.C;
        }

        /// <inheritdoc/>
        public override bool Equals(object obj)
        {
            return obj is SmallestThree && Equals((SmallestThree)obj);
        }

        /// <inheritdoc/>
        public override int GetHashCode()
        {
            return ((Largest * 31 + A) * 31 + B) * 31 + C;
        }

        /// <inheritdoc/>
        public override string ToString()
        {
            return "SmallestThree(" + Largest + ", [" + A + ", " + B + ", " + C + "])";
        }
    }
}
