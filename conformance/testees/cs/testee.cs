// The C# testee: conformance/PROTOCOL.md over standard input and output, answering with the
// codec generated from the reference protocol (gen/Protocol.cs, written by build.sh).
//
// One JSON request per line in, one JSON reply per line out, flushed after each. `hello` lists
// every frame of the spec and the session halves registered in Sessions.cs; `decode` and
// `encode` go through the frames' JSON form; the session ops (open, advance, deliver, take,
// state_hash, close) go to Sessions.Answer; `bye` answers, then exits.
//
// The testee also checks the codec against itself on every request: a frame it decodes must
// encode back to the same bytes, and EncodedLen must predict what Encode writes. A failed check
// exits the process with a message on standard error, which the runner reports as a crash.

using System;
using System.IO;
using System.Text;
using Ackwire.Protocol;
using Ackwire.Runtime;

static class Testee
{
    const int ProtocolVersion = 1;

    static void Broken(string frame, string what)
    {
        Console.Error.WriteLine("testee: the " + frame + " codec " + what);
        Environment.Exit(134);
    }

    /// The codec against itself: what it decoded (or read from JSON) encodes to the bytes it
    /// came from, in as many bytes as EncodedLen says.
    static void CheckCodec(string frame, object value, byte[] bytes)
    {
        byte[] out_;
        try
        {
            out_ = Frames.Encode(frame, value);
        }
        catch (EncodeError e)
        {
            if (bytes != null)
            {
                Broken(frame, "refuses to encode what it decoded: " + e.Message);
            }
            return;
        }
        int len = Frames.EncodedLen(frame, value);
        if (out_.Length != len)
        {
            Broken(frame, "wrote " + out_.Length + " bytes, but EncodedLen said " + len);
        }
        if (bytes != null && Json.ToHex(out_) != Json.ToHex(bytes))
        {
            Broken(frame, "decoded " + Json.ToHex(bytes) + " but encodes it as " + Json.ToHex(out_));
        }
    }

    static string Text(JsonValue request, string name)
    {
        JsonValue v = request.Get(name);
        return v != null && v.Kind == JsonKind.String ? v.Text : "";
    }

    static void Unimplemented(JsonWriter j, string why)
    {
        j.Name("unimplemented");
        j.String(why);
    }

    static void BadRequest(JsonWriter j, string message)
    {
        j.Name("error");
        j.BeginObject();
        j.Name("kind");
        j.String("bad_request");
        j.Name("message");
        j.String(message);
        j.EndObject();
    }

    static void Answer(JsonWriter j, JsonValue request, ref bool bye)
    {
        string op = Text(request, "op");
        string frame = Text(request, "frame");
        if (op == "hello")
        {
            j.Name("ok");
            j.BeginObject();
            j.Name("name");
            j.String("ackwire-cs");
            j.Name("version");
            j.String("0.1.0");
            j.Name("protocol");
            j.Uint(ProtocolVersion);
            j.Name("frames");
            j.BeginArray();
            foreach (string f in Frames.Names)
            {
                j.String(f);
            }
            j.EndArray();
            j.Name("sessions");
            j.BeginArray();
            foreach (string s in Sessions.Halves.Names)
            {
                j.String(s);
            }
            j.EndArray();
            j.EndObject();
            return;
        }
        if ((op == "decode" || op == "encode") && Array.IndexOf(Frames.Names, frame) < 0)
        {
            Unimplemented(j, "frame `" + frame + "` is not implemented");
            return;
        }
        if (op == "decode")
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
                value = Frames.Decode(frame, bytes);
            }
            catch (DecodeError e)
            {
                j.Name("error");
                j.BeginObject();
                j.Name("kind");
                j.String(Errors.KindName(e.Kind));
                j.Name("offset");
                j.Uint((ulong)e.Offset);
                if (e.Bit >= 0)
                {
                    j.Name("bit");
                    j.Uint((ulong)e.Bit);
                }
                j.Name("path");
                j.String(e.Path);
                j.EndObject();
                return;
            }
            CheckCodec(frame, value, bytes);
            j.Name("ok");
            j.BeginObject();
            j.Name("value");
            Frames.ToJson(frame, value, j);
            j.EndObject();
            return;
        }
        if (op == "encode")
        {
            object value;
            try
            {
                JsonValue json = request.Get("value") ?? new JsonValue { Kind = JsonKind.Null };
                value = Frames.FromJson(frame, json);
            }
            catch (JsonError e)
            {
                BadRequest(j, e.Message);
                return;
            }
            CheckCodec(frame, value, null);
            byte[] out_;
            try
            {
                out_ = Frames.Encode(frame, value);
            }
            catch (EncodeError e)
            {
                j.Name("error");
                j.BeginObject();
                j.Name("kind");
                j.String(Errors.KindName(e.Kind));
                j.Name("path");
                j.String(e.Path);
                j.EndObject();
                return;
            }
            j.Name("ok");
            j.BeginObject();
            j.Name("hex");
            j.String(Json.ToHex(out_));
            j.EndObject();
            return;
        }
        if (Sessions.IsSessionOp(op))
        {
            Sessions.Answer(op, request, j);
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
        Unimplemented(j, "`" + op + "` is not implemented");
    }

    static string Reply(string line, ref bool bye)
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

    /// One line of the input, ended by "\n" only (TextReader.ReadLine also ends one at a lone
    /// "\r", which would make two requests of one), without its "\r\n"; null at the end.
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

    static int Main()
    {
        TextReader input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        TextWriter output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
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
}
