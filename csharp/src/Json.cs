// The JSON form of conformance/PROTOCOL.md: value fields only, absent optional fields left out,
// 64-bit values past 2^53 − 1 as decimal strings (readers accept both forms), bit sets as lists
// of names, bytes as lower-case hex, unions as one-member objects.
//
// A small parser (JsonValue.Parse, nesting limited to MaxDepth, so a hostile document cannot
// exhaust the stack) and a writer (JsonWriter); the generated code converts each type to and
// from them.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Ackwire.Runtime
{
    /// <summary>A JSON document refused: what is wrong, and the path to it.</summary>
    public sealed class JsonError : Exception
    {
        /// <summary>The path to the refused value (<c>changes[3].mask</c>).</summary>
        public string Path { get; private set; }
        readonly string what;

        /// <summary>An error saying <paramref name="message"/>.</summary>
        public JsonError(string message)
        {
            what = message;
            Path = "";
        }

        /// <summary>Puts <paramref name="field"/> in front of the path; returns this error.</summary>
        public JsonError Within(string field)
        {
            Path = Errors.Within(field, Path);
            return this;
        }

        /// <summary>Puts list index <paramref name="index"/> in front of the path; returns this error.</summary>
        public JsonError Within(int index)
        {
            Path = Errors.Within(index, Path);
            return this;
        }

        /// <inheritdoc/>
        public override string Message
        {
            get { return Path.Length == 0 ? what : Path + ": " + what; }
        }
    }

    /// <summary>What a JSON value is.</summary>
    public enum JsonKind
    {
        /// <summary><c>null</c>.</summary>
        Null,
        /// <summary><c>true</c> or <c>false</c>.</summary>
        Bool,
        /// <summary>A number, kept as its text so that 64-bit integers stay exact.</summary>
        Number,
        /// <summary>A string.</summary>
        String,
        /// <summary>An array.</summary>
        Array,
        /// <summary>An object.</summary>
        Object,
    }

    /// <summary>A parsed JSON value.</summary>
    public sealed class JsonValue
    {
        /// <summary>The deepest nesting <see cref="Parse"/> accepts.</summary>
        public const int MaxDepth = 128;

        /// <summary>What the value is.</summary>
        public JsonKind Kind;
        /// <summary>A bool's value.</summary>
        public bool BoolValue;
        /// <summary>A number's text or a string's value.</summary>
        public string Text;
        /// <summary>An array's elements.</summary>
        public List<JsonValue> Items;
        /// <summary>An object's members, in order.</summary>
        public List<KeyValuePair<string, JsonValue>> Members;

        /// <summary>The member <paramref name="name"/> of an object, or <c>null</c> when absent.</summary>
        public JsonValue Get(string name)
        {
            if (Kind != JsonKind.Object)
            {
                return null;
            }
            foreach (KeyValuePair<string, JsonValue> m in Members)
            {
                if (m.Key == name)
                {
                    return m.Value;
                }
            }
            return null;
        }

        /// <summary>Parses a whole document.</summary>
        public static JsonValue Parse(string text)
        {
            int i = 0;
            JsonValue v = ParseValue(text, ref i, 0);
            SkipSpace(text, ref i);
            if (i != text.Length)
            {
                throw new JsonError("text after the JSON value at " + i.ToString(CultureInfo.InvariantCulture));
            }
            return v;
        }

        static void SkipSpace(string s, ref int i)
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            {
                i++;
            }
        }

        static JsonError Bad(string what, int at)
        {
            return new JsonError(what + " at " + at.ToString(CultureInfo.InvariantCulture));
        }

        static JsonValue ParseValue(string s, ref int i, int depth)
        {
            if (depth > MaxDepth)
            {
                throw Bad("nesting too deep", i);
            }
            SkipSpace(s, ref i);
            if (i >= s.Length)
            {
                throw Bad("unexpected end", i);
            }
            char c = s[i];
            if (c == '{')
            {
                i++;
                JsonValue o = new JsonValue { Kind = JsonKind.Object, Members = new List<KeyValuePair<string, JsonValue>>() };
                SkipSpace(s, ref i);
                if (i < s.Length && s[i] == '}')
                {
                    i++;
                    return o;
                }
                while (true)
                {
                    SkipSpace(s, ref i);
                    if (i >= s.Length || s[i] != '"')
                    {
                        throw Bad("expected a member name", i);
                    }
                    string name = ParseString(s, ref i);
                    SkipSpace(s, ref i);
                    if (i >= s.Length || s[i] != ':')
                    {
                        throw Bad("expected ':'", i);
                    }
                    i++;
                    o.Members.Add(new KeyValuePair<string, JsonValue>(name, ParseValue(s, ref i, depth + 1)));
                    SkipSpace(s, ref i);
                    if (i < s.Length && s[i] == ',')
                    {
                        i++;
                        continue;
                    }
                    if (i < s.Length && s[i] == '}')
                    {
                        i++;
                        return o;
                    }
                    throw Bad("expected ',' or '}'", i);
                }
            }
            if (c == '[')
            {
                i++;
                JsonValue a = new JsonValue { Kind = JsonKind.Array, Items = new List<JsonValue>() };
                SkipSpace(s, ref i);
                if (i < s.Length && s[i] == ']')
                {
                    i++;
                    return a;
                }
                while (true)
                {
                    a.Items.Add(ParseValue(s, ref i, depth + 1));
                    SkipSpace(s, ref i);
                    if (i < s.Length && s[i] == ',')
                    {
                        i++;
                        continue;
                    }
                    if (i < s.Length && s[i] == ']')
                    {
                        i++;
                        return a;
                    }
                    throw Bad("expected ',' or ']'", i);
                }
            }
            if (c == '"')
            {
                return new JsonValue { Kind = JsonKind.String, Text = ParseString(s, ref i) };
            }
            if (Word(s, ref i, "true"))
            {
                return new JsonValue { Kind = JsonKind.Bool, BoolValue = true };
            }
            if (Word(s, ref i, "false"))
            {
                return new JsonValue { Kind = JsonKind.Bool, BoolValue = false };
            }
            if (Word(s, ref i, "null"))
            {
                return new JsonValue { Kind = JsonKind.Null };
            }
            int start = i;
            while (i < s.Length && ("+-.eE".IndexOf(s[i]) >= 0 || (s[i] >= '0' && s[i] <= '9')))
            {
                i++;
            }
            if (i == start)
            {
                throw Bad("unexpected character", i);
            }
            string text = s.Substring(start, i - start);
            double d;
            if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out d))
            {
                throw Bad("bad number", start);
            }
            return new JsonValue { Kind = JsonKind.Number, Text = text };
        }

        static bool Word(string s, ref int i, string word)
        {
            if (string.CompareOrdinal(s, i, word, 0, word.Length) == 0)
            {
                i += word.Length;
                return true;
            }
            return false;
        }

        static string ParseString(string s, ref int i)
        {
            int start = i;
            i++;
            StringBuilder b = new StringBuilder();
            while (true)
            {
                if (i >= s.Length)
                {
                    throw Bad("unterminated string", start);
                }
                char c = s[i++];
                if (c == '"')
                {
                    return b.ToString();
                }
                if (c != '\\')
                {
                    b.Append(c);
                    continue;
                }
                if (i >= s.Length)
                {
                    throw Bad("unterminated string", start);
                }
                char e = s[i++];
                switch (e)
                {
                    case '"': b.Append('"'); break;
                    case '\\': b.Append('\\'); break;
                    case '/': b.Append('/'); break;
                    case 'b': b.Append('\b'); break;
                    case 'f': b.Append('\f'); break;
                    case 'n': b.Append('\n'); break;
                    case 'r': b.Append('\r'); break;
                    case 't': b.Append('\t'); break;
                    case 'u':
                        int code;
                        if (i + 4 > s.Length || !int.TryParse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out code))
                        {
                            throw Bad("bad escape", i);
                        }
                        b.Append((char)code);
                        i += 4;
                        break;
                    default:
                        throw Bad("bad escape", i - 1);
                }
            }
        }
    }

    /// <summary>Writes JSON text, with the commas between members and elements.</summary>
    public sealed class JsonWriter
    {
        readonly StringBuilder b = new StringBuilder();
        bool first = true;

        void Separate()
        {
            if (!first)
            {
                b.Append(',');
            }
            first = false;
        }

        /// <summary>Opens an object.</summary>
        public void BeginObject() { Separate(); b.Append('{'); first = true; }
        /// <summary>Closes an object.</summary>
        public void EndObject() { b.Append('}'); first = false; }
        /// <summary>Opens an array.</summary>
        public void BeginArray() { Separate(); b.Append('['); first = true; }
        /// <summary>Closes an array.</summary>
        public void EndArray() { b.Append(']'); first = false; }

        /// <summary>A member's name; its value follows.</summary>
        public void Name(string name)
        {
            Separate();
            Quote(name);
            b.Append(':');
            first = true;
        }

        /// <summary>A string.</summary>
        public void String(string v) { Separate(); Quote(v); }
        /// <summary>A bool.</summary>
        public void Bool(bool v) { Separate(); b.Append(v ? "true" : "false"); }
        /// <summary><c>null</c>.</summary>
        public void Null() { Separate(); b.Append("null"); }
        /// <summary>Text already in JSON form.</summary>
        public void Raw(string json) { Separate(); b.Append(json); }

        /// <summary>An unsigned integer, as a number.</summary>
        public void Uint(ulong v)
        {
            Separate();
            b.Append(v.ToString(CultureInfo.InvariantCulture));
        }

        /// <summary>A signed integer, as a number.</summary>
        public void Int(long v)
        {
            Separate();
            b.Append(v.ToString(CultureInfo.InvariantCulture));
        }

        /// <summary>A 64-bit unsigned integer; past 2^53 − 1 a decimal string, so that
        /// JavaScript loses nothing.</summary>
        public void BigUint(ulong v)
        {
            Separate();
            string t = v.ToString(CultureInfo.InvariantCulture);
            if (v > Json.MaxSafe)
            {
                Quote(t);
            }
            else
            {
                b.Append(t);
            }
        }

        /// <summary>A 64-bit signed integer; past ±(2^53 − 1) a decimal string.</summary>
        public void BigInt(long v)
        {
            Separate();
            string t = v.ToString(CultureInfo.InvariantCulture);
            if (v > (long)Json.MaxSafe || v < -(long)Json.MaxSafe)
            {
                Quote(t);
            }
            else
            {
                b.Append(t);
            }
        }

        /// <summary>A finite float, in the shortest form that reads back the same.</summary>
        public void Float(double v)
        {
            Separate();
            // Mono's "R" writes -0 as "0": the sign of zero is part of the value.
            string t = v == 0.0 && BitConverter.DoubleToInt64Bits(v) < 0
                ? "-0"
                : v.ToString("R", CultureInfo.InvariantCulture);
            if (t.IndexOf('.') < 0 && t.IndexOf('E') < 0)
            {
                t += ".0";
            }
            b.Append(t);
        }

        /// <summary>Bytes as a lower-case hex string.</summary>
        public void Hex(byte[] v)
        {
            Separate();
            b.Append('"').Append(Json.ToHex(v)).Append('"');
        }

        void Quote(string s)
        {
            b.Append('"');
            foreach (char c in s)
            {
                if (c == '"' || c == '\\')
                {
                    b.Append('\\').Append(c);
                }
                else if (c < 0x20)
                {
                    b.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                }
                else
                {
                    b.Append(c);
                }
            }
            b.Append('"');
        }

        /// <inheritdoc/>
        public override string ToString() { return b.ToString(); }
    }

    /// <summary>Reading the JSON form's values into the types of the generated code.</summary>
    public static class Json
    {
        /// <summary>2^53 − 1, the largest integer a JavaScript number holds exactly.</summary>
        public const ulong MaxSafe = 9007199254740991;

        /// <summary>A required member of an object.</summary>
        public static JsonValue Member(JsonValue o, string name)
        {
            JsonValue v = Optional(o, name);
            if (v == null)
            {
                throw new JsonError("missing field");
            }
            return v;
        }

        /// <summary>A member that may be absent (or <c>null</c>): <c>null</c> then.</summary>
        public static JsonValue Optional(JsonValue o, string name)
        {
            if (o == null || o.Kind != JsonKind.Object)
            {
                throw new JsonError("expected an object");
            }
            JsonValue v = o.Get(name);
            return v == null || v.Kind == JsonKind.Null ? null : v;
        }

        /// <summary>An unsigned integer at most <paramref name="max"/>, from a number.</summary>
        public static ulong Uint(JsonValue v, ulong max)
        {
            return ParseUint(IntegerText(v, false), max);
        }

        /// <summary>A 64-bit unsigned integer at most <paramref name="max"/>, from a number or a decimal string.</summary>
        public static ulong BigUint(JsonValue v, ulong max)
        {
            return ParseUint(IntegerText(v, true), max);
        }

        /// <summary>A signed integer within [<paramref name="min"/>, <paramref name="max"/>], from a number.</summary>
        public static long Int(JsonValue v, long min, long max)
        {
            return ParseInt(IntegerText(v, false), min, max);
        }

        /// <summary>A 64-bit signed integer within [<paramref name="min"/>, <paramref name="max"/>], from a number or a decimal string.</summary>
        public static long BigInt(JsonValue v, long min, long max)
        {
            return ParseInt(IntegerText(v, true), min, max);
        }

        static ulong ParseUint(string t, ulong max)
        {
            ulong n;
            if (!ulong.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out n) || n > max)
            {
                throw new JsonError("not an integer in 0..=" + max.ToString(CultureInfo.InvariantCulture) + ": " + t);
            }
            return n;
        }

        static long ParseInt(string t, long min, long max)
        {
            long n;
            if (!long.TryParse(t, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out n) || n < min || n > max)
            {
                throw new JsonError("not an integer in " + min.ToString(CultureInfo.InvariantCulture) + "..=" + max.ToString(CultureInfo.InvariantCulture) + ": " + t);
            }
            return n;
        }

        static string IntegerText(JsonValue v, bool strings)
        {
            if (strings && v.Kind == JsonKind.String)
            {
                return v.Text;
            }
            if (v.Kind != JsonKind.Number)
            {
                throw new JsonError("expected an integer");
            }
            string t = v.Text;
            // A whole number written as a float (5.0, 1e3) is not an integer, as for the Rust
            // codec: only integer text reads as an integer.
            if (t.IndexOf('.') >= 0 || t.IndexOf('e') >= 0 || t.IndexOf('E') >= 0)
            {
                throw new JsonError("expected an integer, not the float " + t);
            }
            return t;
        }

        /// <summary>A float (any JSON number).</summary>
        public static double Float(JsonValue v)
        {
            if (v.Kind != JsonKind.Number)
            {
                throw new JsonError("expected a number");
            }
            double d = double.Parse(v.Text, NumberStyles.Float, CultureInfo.InvariantCulture);
            // Mono's (and .NET Framework's) parser reads -0 as +0: the sign of zero is part of
            // the value (an f32 of -0.0 is the bytes 00000080), so it is put back.
            if (d == 0.0 && v.Text.StartsWith("-", StringComparison.Ordinal))
            {
                return -0.0;
            }
            return d;
        }

        /// <summary>A bool.</summary>
        public static bool Bool(JsonValue v)
        {
            if (v.Kind != JsonKind.Bool)
            {
                throw new JsonError("expected true or false");
            }
            return v.BoolValue;
        }

        /// <summary>An array's elements.</summary>
        public static List<JsonValue> Array(JsonValue v)
        {
            if (v.Kind != JsonKind.Array)
            {
                throw new JsonError("expected an array");
            }
            return v.Items;
        }

        /// <summary>The one member of a union's object: its variant's name and value.</summary>
        public static KeyValuePair<string, JsonValue> Variant(JsonValue v)
        {
            if (v.Kind != JsonKind.Object || v.Members.Count != 1)
            {
                throw new JsonError("expected an object of one member, the variant");
            }
            return v.Members[0];
        }

        /// <summary>Bytes from a hex string.</summary>
        public static byte[] Bytes(JsonValue v)
        {
            if (v.Kind != JsonKind.String)
            {
                throw new JsonError("expected a hex string");
            }
            byte[] b = FromHex(v.Text);
            if (b == null)
            {
                throw new JsonError("bad hex: " + v.Text);
            }
            return b;
        }

        /// <summary>The bits named in a list of names, refusing a name that is not one of <paramref name="names"/>.</summary>
        public static ulong BitNames(JsonValue v, string[] names, int[] indices)
        {
            ulong set = 0;
            foreach (JsonValue item in Array(v))
            {
                if (item.Kind != JsonKind.String)
                {
                    throw new JsonError("expected a bit's name");
                }
                int at = System.Array.IndexOf(names, item.Text);
                if (at < 0)
                {
                    throw new JsonError("unknown bit " + item.Text);
                }
                set |= 1UL << indices[at];
            }
            return set;
        }

        /// <summary>Writes the names of the bits of <paramref name="set"/> as a list.</summary>
        public static void WriteBitNames(JsonWriter j, ulong set, string[] names, int[] indices)
        {
            j.BeginArray();
            for (int i = 0; i < names.Length; i++)
            {
                if (((set >> indices[i]) & 1) == 1)
                {
                    j.String(names[i]);
                }
            }
            j.EndArray();
        }

        /// <summary>Lower-case hex of <paramref name="v"/>.</summary>
        public static string ToHex(byte[] v)
        {
            const string digits = "0123456789abcdef";
            char[] c = new char[v.Length * 2];
            for (int i = 0; i < v.Length; i++)
            {
                c[2 * i] = digits[v[i] >> 4];
                c[2 * i + 1] = digits[v[i] & 15];
            }
            return new string(c);
        }

        /// <summary>The bytes of a hex string (either case, spaces allowed), or <c>null</c> when it is not one.</summary>
        public static byte[] FromHex(string text)
        {
            List<byte> out_ = new List<byte>(text.Length / 2);
            int high = -1;
            foreach (char c in text)
            {
                if (c == ' ')
                {
                    continue;
                }
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0)
                {
                    return null;
                }
                if (high < 0)
                {
                    high = d;
                }
                else
                {
                    out_.Add((byte)(high * 16 + d));
                    high = -1;
                }
            }
            return high < 0 ? out_.ToArray() : null;
        }
    }
}
