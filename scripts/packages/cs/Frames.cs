// A user's program over the built Ackwire.Runtime.dll: every golden frame vector through the
// codec generated against it (`ackwire gen --lang cs --runtime package`). An accepted frame must
// re-encode to its own bytes; a refused one must fail with the vector's kind, byte offset and
// field path. Usage: mono frames.exe VECTORS/frames
using System;
using System.Collections.Generic;
using System.IO;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

public static class FramesProgram
{
    public static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: frames.exe VECTORS/frames");
            return 2;
        }
        List<string> failures = new List<string>();
        int accepted = 0;
        int refused = 0;
        string[] files = Directory.GetFiles(args[0], "*.json");
        Array.Sort(files, StringComparer.Ordinal);
        foreach (string path in files)
        {
            JsonValue vectors = JsonValue.Parse(File.ReadAllText(path));
            string frame = vectors.Get("frame").Text;
            foreach (JsonValue c in vectors.Get("cases").Items)
            {
                string fault = Check(frame, c);
                if (fault != null)
                {
                    failures.Add(fault);
                }
                if (c.Get("error") == null)
                {
                    accepted++;
                }
                else
                {
                    refused++;
                }
            }
        }

        // The session machines are in the assembly too: a frame through the outbox every half
        // queues in.
        Outbox outbox = new Outbox();
        outbox.Push(new Transmit("ack", new byte[] { 7, 0 }, false));
        Transmit sent = outbox.Poll();
        if (sent == null || sent.Frame != "ack" || outbox.Poll() != null)
        {
            failures.Add("Sessions: the outbox did not hand back its one frame");
        }

        foreach (string f in failures)
        {
            Console.Error.WriteLine("FAIL " + f);
        }
        Console.WriteLine("Ackwire.Runtime.dll in a project of its own: " + accepted
            + " frame vectors decoded and re-encoded, " + refused
            + " refused at their byte and field, " + failures.Count + " failures");
        return failures.Count == 0 ? 0 : 1;
    }

    // What is wrong with case `c` of frame `frame`, or null.
    static string Check(string frame, JsonValue c)
    {
        string name = c.Get("name").Text;
        byte[] bytes = Json.FromHex(c.Get("hex").Text);
        JsonValue want = c.Get("error");
        object value;
        try
        {
            value = Frames.Decode(frame, bytes);
        }
        catch (DecodeError e)
        {
            if (want == null)
            {
                return name + ": refused a valid frame: " + e.Message;
            }
            string kind = want.Get("kind").Text;
            string offset = want.Get("offset").Text;
            string path = want.Get("path").Text;
            if (Errors.KindName(e.Kind) != kind || e.Offset.ToString() != offset || e.Path != path)
            {
                return name + ": " + e.Message + ", want " + kind + " at byte " + offset + ", field " + path;
            }
            return null;
        }
        if (want != null)
        {
            return name + ": decoded, but the vector says " + want.Get("kind").Text;
        }
        string again = Json.ToHex(Frames.Encode(frame, value));
        return again == Json.ToHex(bytes) ? null : name + ": re-encoded as " + again;
    }
}
