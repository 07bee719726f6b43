// The testee protocol (conformance/PROTOCOL.md) for any generated C# codec: one JSON request per
// line in, one JSON reply per line out, flushed after each. `ackwire gen --lang cs --testee`
// writes this file into Runtime/ with Testee.cs, which binds the codec's Frames, and Main.cs,
// which serves them; the reference protocol's testee adds its session halves.
//
// The codec is also held to its own promises on every request (WIRE-21): bytes it
// decodes encode back to exactly those bytes, and EncodedLen predicts what Encode writes. A
// broken promise exits the process with a message on standard error, which the runner reports
// as a crash.

using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace Ackwire.Runtime
{
    /// <summary>A spec's frames by name, as the generated <c>Frames</c> class gives them.</summary>
    public interface ITesteeFrames
    {
        /// <summary>Every frame's name, in declaration order.</summary>
        string[] Names { get; }

        /// <summary>Decodes the frame named <paramref name="name"/>; a bad frame throws a <see cref="DecodeError"/>.</summary>
        object Decode(string name, byte[] bytes);

        /// <summary>Encodes a value of the frame named <paramref name="name"/>; a value no decoder accepts throws an <see cref="EncodeError"/>.</summary>
        byte[] Encode(string name, object value);

        /// <summary>The number of bytes <see cref="Encode"/> writes for <paramref name="value"/>.</summary>
        int EncodedLen(string name, object value);

        /// <summary>Writes a value of the frame named <paramref name="name"/> in the JSON form.</summary>
        void ToJson(string name, object value, JsonWriter j);

        /// <summary>A value of the frame named <paramref name="name"/> from its JSON form; bad JSON throws a <see cref="JsonError"/>.</summary>
        object FromJson(string name, JsonValue json);
    }

    /// <summary>
    /// Frames read and written against a basis, the records of the states they are predicted
    /// from (kind 13's coded frame, <c>docs/spec/coded.md</c>): their <c>decode</c> and
    /// <c>encode</c> requests carry it as a <c>basis</c> member (conformance/PROTOCOL.md, "A coded
    /// frame's basis"), handed here as it came (null when absent: nothing held).
    /// </summary>
    public interface ITesteeBasisFrames
    {
        /// <summary>The names of the frames that take a basis.</summary>
        string[] Names { get; }

        /// <summary>Decodes the frame named <paramref name="name"/> against <paramref name="basis"/>; a bad frame throws a <see cref="DecodeError"/>, a bad basis a <see cref="JsonError"/>.</summary>
        object Decode(string name, byte[] bytes, JsonValue basis);

        /// <summary>Encodes a value of the frame named <paramref name="name"/> against <paramref name="basis"/>; a value no decoder accepts throws an <see cref="EncodeError"/>, a bad basis a <see cref="JsonError"/>.</summary>
        byte[] Encode(string name, object value, JsonValue basis);

        /// <summary>Writes a value of the frame named <paramref name="name"/> in the JSON form.</summary>
        void ToJson(string name, object value, JsonWriter j);

        /// <summary>A value of the frame named <paramref name="name"/> from its JSON form; bad JSON throws a <see cref="JsonError"/>.</summary>
        object FromJson(string name, JsonValue json);
    }

    /// <summary>The session halves a testee implements beside its frames.</summary>
    public interface ITesteeSessions
    {
        /// <summary>The halves <c>hello</c> lists.</summary>
        IEnumerable<string> Names { get; }

        /// <summary>Writes the reply body (after the id) to the session op <paramref name="op"/>.</summary>
        void Answer(string op, JsonValue request, JsonWriter j);
    }

    /// <summary>A testee: the replies to request lines, for a codec's frames and, optionally, session halves.</summary>
    public sealed class Testee
    {
        /// <summary>The protocol version spoken.</summary>
        public const int ProtocolVersion = 1;

        readonly string name;
        readonly ITesteeFrames frames;
        readonly ITesteeSessions sessions;
        readonly ITesteeBasisFrames onBasis;

        /// <summary>A testee called <paramref name="name"/> in <c>hello</c>, serving <paramref name="frames"/> and, unless null, <paramref name="sessions"/>.</summary>
        public Testee(string name, ITesteeFrames frames, ITesteeSessions sessions)
            : this(name, frames, sessions, null)
        {
        }

        /// <summary>
        /// A testee serving, besides, <paramref name="onBasis"/>'s frames (unless null), whose
        /// requests carry a <c>basis</c>.
        /// </summary>
        public Testee(string name, ITesteeFrames frames, ITesteeSessions sessions, ITesteeBasisFrames onBasis)
        {
            this.name = name;
            this.frames = frames;
            this.sessions = sessions;
            this.onBasis = onBasis;
        }

        bool TakesBasis(string frame)
        {
            return onBasis != null && frame != null && Array.IndexOf(onBasis.Names, frame) >= 0;
        }

        /// <summary>
        /// A decode request of a frame that takes a basis: its reply, the codec held to its own
        /// promise (what it decoded encodes, against the same basis, to the same bytes).
        /// </summary>
        void DecodeOnBasis(JsonWriter j, string frame, JsonValue request)
        {
            byte[] bytes = Json.FromHex(Text(request, "hex"));
            if (bytes == null)
            {
                BadRequest(j, "`hex` is not a hex string");
                return;
            }
            JsonValue basis = request.Get("basis");
            object value;
            try
            {
                value = onBasis.Decode(frame, bytes, basis);
            }
            catch (DecodeError e)
            {
                Error(j, e.Kind, e.Offset, e.Bit, e.Path);
                return;
            }
            catch (JsonError e)
            {
                BadRequest(j, "`basis`: " + e.Message);
                return;
            }
            try
            {
                byte[] written = onBasis.Encode(frame, value, basis);
                if (Json.ToHex(written) != Json.ToHex(bytes))
                {
                    Broken(frame, "decoded " + Json.ToHex(bytes) + " but encodes it as " + Json.ToHex(written));
                }
            }
            catch (EncodeError e)
            {
                Broken(frame, "refuses to encode what it decoded: " + e.Message);
            }
            j.Name("ok");
            j.BeginObject();
            j.Name("value");
            onBasis.ToJson(frame, value, j);
            j.EndObject();
        }

        /// <summary>An encode request of a frame that takes a basis.</summary>
        void EncodeOnBasis(JsonWriter j, string frame, JsonValue request)
        {
            byte[] written;
            try
            {
                JsonValue json = request.Get("value") ?? new JsonValue { Kind = JsonKind.Null };
                object value = onBasis.FromJson(frame, json);
                written = onBasis.Encode(frame, value, request.Get("basis"));
            }
            catch (JsonError e)
            {
                BadRequest(j, e.Message);
                return;
            }
            catch (EncodeError e)
            {
                Error(j, e.Kind, -1, -1, e.Path);
                return;
            }
            j.Name("ok");
            j.BeginObject();
            j.Name("hex");
            j.String(Json.ToHex(written));
            j.EndObject();
        }

        /// <summary>Whether <paramref name="op"/> is one of the protocol's session operations.</summary>
        public static bool IsSessionOp(string op)
        {
            switch (op)
            {
                case "open":
                case "advance":
                case "deliver":
                case "take":
                case "state_hash":
                case "close":
                    return true;
                default:
                    return false;
            }
        }

        /// <summary>Answers every line of <paramref name="input"/> on <paramref name="output"/> until it ends or a <c>bye</c>; the exit code.</summary>
        public int Serve(TextReader input, TextWriter output)
        {
            string line;
            while ((line = ReadLine(input)) != null)
            {
                // A line of spaces, tabs and carriage returns only is no request.
                if (line.Trim(' ', '\t', '\r').Length == 0)
                {
                    continue;
                }
                bool bye = false;
                output.Write(Reply(line, ref bye));
                output.Write('\n');
                output.Flush();
                if (bye)
                {
                    return 0;
                }
            }
            return 0;
        }

        /// <summary>The reply line (without its newline) to one request line; <paramref name="bye"/> is set on <c>bye</c>.</summary>
        public string Reply(string line, ref bool bye)
        {
            JsonWriter j = new JsonWriter();
            j.BeginObject();
            JsonValue request;
            try
            {
                request = JsonValue.Parse(line);
            }
            catch (JsonError e)
            {
                j.Name("id");
                j.Null();
                BadRequest(j, e.Message);
                j.EndObject();
                return j.ToString();
            }
            JsonValue id = request.Get("id");
            j.Name("id");
            if (id != null && id.Kind == JsonKind.Number)
            {
                j.Raw(id.Text);
            }
            else
            {
                j.Null();
            }
            Answer(j, request, ref bye);
            j.EndObject();
            return j.ToString();
        }

        /// <summary>
        /// One line of the input, ended by "\n" only (TextReader.ReadLine also ends one at a lone
        /// "\r", which would make two requests of one), without its "\r\n"; null at the end.
        /// </summary>
        static string ReadLine(TextReader input)
        {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = input.Read()) >= 0)
            {
                if (c == '\n')
                {
                    return b.Length > 0 && b[b.Length - 1] == '\r' ? b.ToString(0, b.Length - 1) : b.ToString();
                }
                b.Append((char)c);
            }
            return b.Length > 0 ? b.ToString() : null;
        }

        static string Text(JsonValue request, string member)
        {
            JsonValue v = request.Get(member);
            return v != null && v.Kind == JsonKind.String ? v.Text : "";
        }

        /// <summary>Writes an <c>unimplemented</c> member saying <paramref name="why"/>.</summary>
        public static void Unimplemented(JsonWriter j, string why)
        {
            j.Name("unimplemented");
            j.String(why);
        }

        /// <summary>Writes an <c>error</c> member of kind <c>bad_request</c> saying <paramref name="message"/>: a request the testee cannot act on.</summary>
        public static void BadRequest(JsonWriter j, string message)
        {
            j.Name("error");
            j.BeginObject();
            j.Name("kind");
            j.String("bad_request");
            j.Name("message");
            j.String(message);
            j.EndObject();
        }

        /// <summary>
        /// Writes an <c>error</c> member of <paramref name="kind"/> at field <paramref name="path"/>;
        /// a decoder's also at byte <paramref name="offset"/> and, in a packed body, bit
        /// <paramref name="bit"/> (each left out when negative).
        /// </summary>
        static void Error(JsonWriter j, ErrorKind kind, long offset, long bit, string path)
        {
            j.Name("error");
            j.BeginObject();
            j.Name("kind");
            j.String(Errors.KindName(kind));
            if (offset >= 0)
            {
                j.Name("offset");
                j.Uint((ulong)offset);
            }
            if (bit >= 0)
            {
                j.Name("bit");
                j.Uint((ulong)bit);
            }
            j.Name("path");
            j.String(path);
            j.EndObject();
        }

        static void Broken(string frame, string what)
        {
            Console.Error.WriteLine("testee: the " + frame + " codec " + what);
            Environment.Exit(134);
        }

        /// <summary>
        /// The codec against itself: what it decoded (or read from JSON) encodes to the bytes it
        /// came from, in as many bytes as EncodedLen says.
        /// </summary>
        void HoldToPromises(string frame, object value, byte[] bytes)
        {
            byte[] written;
            try
            {
                written = frames.Encode(frame, value);
            }
            catch (EncodeError e)
            {
                if (bytes != null)
                {
                    Broken(frame, "refuses to encode what it decoded: " + e.Message);
                }
                return;
            }
            int len = frames.EncodedLen(frame, value);
            if (written.Length != len)
            {
                Broken(frame, "wrote " + written.Length + " bytes, but EncodedLen said " + len);
            }
            if (bytes != null && Json.ToHex(written) != Json.ToHex(bytes))
            {
                Broken(frame, "decoded " + Json.ToHex(bytes) + " but encodes it as " + Json.ToHex(written));
            }
        }

        void Hello(JsonWriter j)
        {
            j.Name("ok");
            j.BeginObject();
            j.Name("name");
            j.String(name);
            j.Name("version");
            j.String("0.1.0");
            j.Name("protocol");
            j.Uint(ProtocolVersion);
            j.Name("frames");
            j.BeginArray();
            foreach (string f in frames.Names)
            {
                j.String(f);
            }
            if (onBasis != null)
            {
                foreach (string f in onBasis.Names)
                {
                    j.String(f);
                }
            }
            j.EndArray();
            j.Name("sessions");
            j.BeginArray();
            if (sessions != null)
            {
                foreach (string s in sessions.Names)
                {
                    j.String(s);
                }
            }
            j.EndArray();
            j.EndObject();
        }

        void Decode(JsonWriter j, string frame, JsonValue request)
        {
            byte[] bytes = Json.FromHex(Text(request, "hex"));
            if (bytes == null)
            {
                BadRequest(j, "`hex` is not a hex string");
                return;
            }
            object value;
            try
            {
                value = frames.Decode(frame, bytes);
            }
            catch (DecodeError e)
            {
                Error(j, e.Kind, e.Offset, e.Bit, e.Path);
                return;
            }
            HoldToPromises(frame, value, bytes);
            j.Name("ok");
            j.BeginObject();
            j.Name("value");
            frames.ToJson(frame, value, j);
            j.EndObject();
        }

        void Encode(JsonWriter j, string frame, JsonValue request)
        {
            object value;
            try
            {
                JsonValue json = request.Get("value") ?? new JsonValue { Kind = JsonKind.Null };
                value = frames.FromJson(frame, json);
            }
            catch (JsonError e)
            {
                BadRequest(j, e.Message);
                return;
            }
            HoldToPromises(frame, value, null);
            byte[] written;
            try
            {
                written = frames.Encode(frame, value);
            }
            catch (EncodeError e)
            {
                Error(j, e.Kind, -1, -1, e.Path);
                return;
            }
            j.Name("ok");
            j.BeginObject();
            j.Name("hex");
            j.String(Json.ToHex(written));
            j.EndObject();
        }

        void Answer(JsonWriter j, JsonValue request, ref bool bye)
        {
            string op = Text(request, "op");
            string frame = Text(request, "frame");
            if (op == "hello")
            {
                Hello(j);
                return;
            }
            if (op == "bye")
            {
                bye = true;
                j.Name("ok");
                j.BeginObject();
                j.EndObject();
                return;
            }
            if (op == "decode" && TakesBasis(frame))
            {
                DecodeOnBasis(j, frame, request);
                return;
            }
            if (op == "encode" && TakesBasis(frame))
            {
                EncodeOnBasis(j, frame, request);
                return;
            }
            if ((op == "decode" || op == "encode") && Array.IndexOf(frames.Names, frame) < 0)
            {
                Unimplemented(j, "frame `" + frame + "` is not implemented");
                return;
            }
            if (op == "decode")
            {
                Decode(j, frame, request);
                return;
            }
            if (op == "encode")
            {
                Encode(j, frame, request);
                return;
            }
            if (IsSessionOp(op) && sessions != null)
            {
                sessions.Answer(op, request, j);
                return;
            }
            Unimplemented(j, "`" + op + "` is not implemented");
        }
    }
}
