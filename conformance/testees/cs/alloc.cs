// What decoding allocates, measured: every frame vector of a folder of them (the path is the first
// argument: vectors/frames/ or vectors/derived/) is decoded by the generated C# codec, after a
// warm-up, between two readings of GC.GetAllocatedBytesForCurrentThread. WIRE-26: a decoder
// allocates at most a stated small multiple of its input; the C# readers are structs passed by ref
// and lists are read in loops, so what a decode allocates is the decoded values alone. Prints one
// line per frame (its vectors, the most bytes one decode allocated, the most per input byte) and
// exits 1 when a decode allocates more than Bound(frame, input length), or when the least-size kind
// 12 frame (a bit-packed body of changes of 9 bits each, the most values a byte of input can hold)
// does.
//
// Built by build.sh beside the testee (build/alloc.exe); run by cli/tests/cs_testee.rs.

using System;
using System.IO;
using Ackwire.Protocol;
using Ackwire.Runtime;

static class Alloc
{
    /// The frames with a bit-packed body of records (issue 19, and the snapshot's entries): there
    /// an element is as short as its least bits, 9 for a kind 12 change (an id gap of 1 in 3 bits
    /// and an empty 6-bit mask), 13 for a snapshot entry, where a byte-aligned element takes a byte
    /// or more, and it decodes to an object as large as a byte-aligned one's (a PackedChange: 72
    /// bytes, and 8 in its list).
    static readonly string[] BitPacked = { "acked_packed", "snapshot" };

    /// The most one decode of `length` bytes of frame `name` may allocate: the objects' headers of
    /// the values of an empty frame, then a small multiple of the input: 32 bytes an input byte (a
    /// datagram's update is at least 4 bytes on the wire and decodes to 96, object and list slot:
    /// 24 a byte, as the derived vectors' long lists measure it), or 72 for a bit-packed body (80
    /// bytes for every 9 bits is 71.1 a byte).
    static long Bound(string name, int length)
    {
        long perByte = Array.IndexOf(BitPacked, name) >= 0 ? 72 : 32;
        return 256 + perByte * length;
    }

    /// A kind 12 frame of `n` changes of the least size: consecutive ids, empty masks.
    static AckedPacked Densest(int n)
    {
        PackedChange[] changes = new PackedChange[n];
        for (int i = 0; i < n; i++)
        {
            changes[i] = new PackedChange { Eid = (uint)(i + 1), Mask = 0 };
        }
        return new AckedPacked
        {
            Tick = 2,
            BaseTick = 1,
            Removed = new ushort[0],
            Body = new PackedChanges { Changes = changes },
            Events = new Event[0],
        };
    }

    /// What one decode of `bytes` as frame `name` allocates, after a warm-up.
    static long Measure(string name, byte[] bytes)
    {
        for (int i = 0; i < 100; i++)
        {
            Frames.Decode(name, bytes);
        }
        long before = GC.GetAllocatedBytesForCurrentThread();
        Frames.Decode(name, bytes);
        return GC.GetAllocatedBytesForCurrentThread() - before;
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
                long allocated = Measure(name, bytes);
                count++;
                most = Math.Max(most, allocated);
                perByte = Math.Max(perByte, (double)allocated / Math.Max(bytes.Length, 1));
                if (allocated > Bound(name, bytes.Length))
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
        // Hostile density: the most changes a kind 12 frame's bytes can hold.
        foreach (int n in new[] { 100, 5000 })
        {
            byte[] dense = Densest(n).Encode();
            long allocated = Measure("acked_packed", dense);
            decoded++;
            Console.WriteLine("acked_packed, " + n + " changes of 9 bits: " + allocated + " bytes a decode, "
                + ((double)allocated / dense.Length).ToString("F1") + " per input byte");
            if (allocated > Bound("acked_packed", dense.Length))
            {
                failed++;
                Console.WriteLine("TOO MUCH acked_packed, " + n + " changes of 9 bits: " + allocated + " bytes for " + dense.Length);
            }
        }
        Console.WriteLine(decoded + " decodes measured, " + failed + " over the bound");
        return failed == 0 && decoded > 0 ? 0 : 1;
    }
}
