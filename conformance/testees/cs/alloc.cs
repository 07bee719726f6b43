// What decoding allocates, measured: every frame vector of vectors/frames/ (the path is the
// first argument) is decoded by the generated C# codec, after a warm-up, between two readings
// of GC.GetAllocatedBytesForCurrentThread. DESIGN.md section 3: a decoder "allocates at most a
// small multiple of its input"; the C# readers are structs passed by ref and lists are read in
// loops, so what a decode allocates is the decoded values alone. Prints one line per frame (its
// vectors, the most bytes one decode allocated, the most per input byte) and exits 1 when a
// decode allocates more than Bound(input length).
//
// Built by build.sh beside the testee (build/alloc.exe); run by cli/tests/cs_testee.rs.

using System;
using System.IO;
using Ackwire.Protocol;
using Ackwire.Runtime;

static class Alloc
{
    /// The most one decode of `length` bytes may allocate: the objects' headers of the values of
    /// an empty frame, then a small multiple of the input.
    static long Bound(int length)
    {
        return 256 + 16L * length;
    }

    static int Main(string[] args)
    {
        int failed = 0;
        int decoded = 0;
        foreach (string name in Frames.Names)
        {
            string path = Path.Combine(args[0], name + ".json");
            JsonValue file = JsonValue.Parse(File.ReadAllText(path));
            long most = 0;
            double perByte = 0;
            int count = 0;
            foreach (JsonValue c in Json.Array(Json.Member(file, "cases")))
            {
                if (Json.Optional(c, "value") == null)
                {
                    continue;
                }
                byte[] bytes = Json.FromHex(Json.Member(c, "hex").Text);
                for (int i = 0; i < 100; i++)
                {
                    Frames.Decode(name, bytes);
                }
                long before = GC.GetAllocatedBytesForCurrentThread();
                Frames.Decode(name, bytes);
                long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                count++;
                most = Math.Max(most, allocated);
                perByte = Math.Max(perByte, (double)allocated / Math.Max(bytes.Length, 1));
                if (allocated > Bound(bytes.Length))
                {
                    failed++;
                    Console.WriteLine("TOO MUCH " + name + " " + Json.Member(c, "name").Text + ": "
                        + allocated + " bytes for " + bytes.Length);
                }
            }
            decoded += count;
            Console.WriteLine(name + ": " + count + " vectors, at most " + most + " bytes a decode, "
                + perByte.ToString("F1") + " per input byte");
        }
        Console.WriteLine(decoded + " decodes measured, " + failed + " over the bound");
        return failed == 0 && decoded > 0 ? 0 : 1;
    }
}
