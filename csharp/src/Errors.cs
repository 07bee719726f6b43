// The error taxonomy every ackwire codec shares (conformance/PROTOCOL.md, "Error kinds"), and
// field paths.
//
// A reader or writer keeps no path while it works: an error is made with an empty one, and each
// record, list and union it unwinds through puts the field, index or variant it was in at the
// front of it (Within), so that only a fault pays for naming where it is.

using System;
using System.Globalization;

namespace Ackwire.Runtime
{
    /// <summary>The kinds of fault of conformance/PROTOCOL.md, the same in every language.</summary>
    public enum ErrorKind
    {
        /// <summary>The input ends inside a field.</summary>
        Truncated,
        /// <summary>A constant field (kind, version) holds another value.</summary>
        BadConstant,
        /// <summary>A reserved bit of a bit set, or a padding bit of a packed body, is set.</summary>
        ReservedBit,
        /// <summary>A varint is longer than its value needs.</summary>
        NonCanonicalVarint,
        /// <summary>A value does not fit its field's width.</summary>
        OverWidth,
        /// <summary>A count is larger than the remaining bytes can hold.</summary>
        CountTooLarge,
        /// <summary>Bytes remain after the frame.</summary>
        TrailingBytes,
        /// <summary>A bit is set without the bit it requires, or an optional field contradicts its condition.</summary>
        InvalidCondition,
        /// <summary>A union's tag names no variant.</summary>
        UnknownTag,
        /// <summary>A float is NaN or infinite.</summary>
        NonFinite,
        /// <summary>An ascending list has a difference of 0.</summary>
        NotAscending,
        /// <summary>A value has another encoding its encoder writes instead (a smallest-three
        /// quaternion whose dropped component is not the largest).</summary>
        NonCanonical,
    }

    /// <summary>Names of error kinds and field paths.</summary>
    public static class Errors
    {
        /// <summary>The kind's name in conformance/PROTOCOL.md (<c>non_canonical_varint</c>).</summary>
        public static string KindName(ErrorKind kind)
        {
            switch (kind)
            {
                case ErrorKind.Truncated: return "truncated";
                case ErrorKind.BadConstant: return "bad_constant";
                case ErrorKind.ReservedBit: return "reserved_bit";
                case ErrorKind.NonCanonicalVarint: return "non_canonical_varint";
                case ErrorKind.OverWidth: return "over_width";
                case ErrorKind.CountTooLarge: return "count_too_large";
                case ErrorKind.TrailingBytes: return "trailing_bytes";
                case ErrorKind.InvalidCondition: return "invalid_condition";
                case ErrorKind.UnknownTag: return "unknown_tag";
                case ErrorKind.NonFinite: return "non_finite";
                case ErrorKind.NotAscending: return "not_ascending";
                default: return "non_canonical";
            }
        }

        /// <summary>The path <paramref name="path"/> within field <paramref name="field"/>:
        /// <c>changes</c> and <c>[3].mask</c> give <c>changes[3].mask</c>.</summary>
        public static string Within(string field, string path)
        {
            if (path.Length == 0 || field.Length == 0)
            {
                return field + path;
            }
            return path[0] == '[' ? field + path : field + "." + path;
        }

        /// <summary>The path <paramref name="path"/> within element <paramref name="index"/> of a list.</summary>
        public static string Within(int index, string path)
        {
            return Within("[" + index.ToString(CultureInfo.InvariantCulture) + "]", path);
        }
    }

    /// <summary>A frame refused by a decoder: its kind, the byte (and, in a packed body, the
    /// bit) where the fault is, and the field path to it.</summary>
    public sealed class DecodeError : Exception
    {
        /// <summary>What is wrong.</summary>
        public ErrorKind Kind { get; private set; }
        /// <summary>The byte offset of the fault from the frame's start.</summary>
        public long Offset { get; private set; }
        /// <summary>The bit offset of the fault within a packed body, or -1 outside one.</summary>
        public long Bit { get; private set; }
        /// <summary>The field path to the fault (<c>changes[3].mask</c>), empty at the top.</summary>
        public string Path { get; private set; }

        /// <summary>An error of <paramref name="kind"/> at byte <paramref name="offset"/>.</summary>
        public DecodeError(ErrorKind kind, long offset, long bit)
        {
            Kind = kind;
            Offset = offset;
            Bit = bit;
            Path = "";
        }

        /// <summary>Puts <paramref name="field"/> in front of the path; returns this error.</summary>
        public DecodeError Within(string field)
        {
            Path = Errors.Within(field, Path);
            return this;
        }

        /// <summary>Puts list index <paramref name="index"/> in front of the path; returns this error.</summary>
        public DecodeError Within(int index)
        {
            Path = Errors.Within(index, Path);
            return this;
        }

        /// <inheritdoc/>
        public override string Message
        {
            get
            {
                string at = Bit < 0
                    ? "byte " + Offset.ToString(CultureInfo.InvariantCulture)
                    : "byte " + Offset.ToString(CultureInfo.InvariantCulture) + " (bit " + Bit.ToString(CultureInfo.InvariantCulture) + ")";
                return Errors.KindName(Kind) + " at " + at + (Path.Length == 0 ? "" : ", field " + Path);
            }
        }
    }

    /// <summary>A value refused by an encoder (no decoder would accept what it would write): its
    /// kind and the field path to it.</summary>
    public sealed class EncodeError : Exception
    {
        /// <summary>What is wrong.</summary>
        public ErrorKind Kind { get; private set; }
        /// <summary>The field path to the refused value.</summary>
        public string Path { get; private set; }

        /// <summary>An error of <paramref name="kind"/>.</summary>
        public EncodeError(ErrorKind kind)
        {
            Kind = kind;
            Path = "";
        }

        /// <summary>Puts <paramref name="field"/> in front of the path; returns this error.</summary>
        public EncodeError Within(string field)
        {
            Path = Errors.Within(field, Path);
            return this;
        }

        /// <summary>Puts list index <paramref name="index"/> in front of the path; returns this error.</summary>
        public EncodeError Within(int index)
        {
            Path = Errors.Within(index, Path);
            return this;
        }

        /// <inheritdoc/>
        public override string Message
        {
            get { return "cannot encode: " + Errors.KindName(Kind) + (Path.Length == 0 ? "" : " in " + Path); }
        }
    }
}
