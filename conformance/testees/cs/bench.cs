// The C# codec and AckedDecoder, timed on the cube scene's acked frames: the generated
// Acked.Decode alone, the reference binding's reader (Reference.DecodeFrameInto, generated for
// `state Reference`: its reader at once into reused staged changes) alone, and a fresh
// AckedDecoder's whole delivery (decoding, applying onto the base, the report against the last
// frame shown, the check), in the unit of
// `cargo bench -p ackwire-bench --bench deliver`: nanoseconds per entity of the world per frame.
// Run it with `bash conformance/testees/cs/bench.sh`, which writes the frames
// (bench/examples/cube_frames.rs: the first four seconds, 901 bodies, seed 1, 5% loss, the
// frames conformance/testees/ts/deliver.sh times) and prints the Rust decoder's figure on the
// same frames beside it (bench/examples/deliver_frames.rs). It times; it asserts no speed.
//
// Before timing, every frame must decode, encode back to its bytes and show (no frame is lost
// on the way here, so each one's base is held), and mutants of every frame (a byte changed, or
// the frame cut short) go through a decoder, which must answer each without an exception; on
// each of them the binding's reader must agree with the generated Acked.Decode.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using Ackwire.Protocol;
using Ackwire.Reference;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

static class Bench
{
    /// What the timed loops fold their results into, so that no work is optimized away.
    static long sink;

    static AckedDecoder<EntityState, StagedChange, Event, Input> Fresh()
    {
        return new AckedDecoder<EntityState, StagedChange, Event, Input>(Reference.Schema);
    }

    static long DecodeAll(List<byte[]> frames)
    {
        long n = 0;
        foreach (byte[] f in frames)
        {
            n += Acked.Decode(f).Changes.Length;
        }
        return n;
    }

    static readonly AckedFrame<StagedChange, Event> Into = new AckedFrame<StagedChange, Event>();

    static long ReadAll(List<byte[]> frames)
    {
        long n = 0;
        foreach (byte[] f in frames)
        {
            Reference.Schema.DecodeFrameInto(f, Into);
            n += Into.Changes.Length;
        }
        return n;
    }

    static long DeliverAll(List<byte[]> frames)
    {
        AckedDecoder<EntityState, StagedChange, Event, Input> d = Fresh();
        long shown = 0;
        foreach (byte[] f in frames)
        {
            if (d.Deliver(f).Kind == DeliveryKind.Shown)
            {
                shown++;
            }
        }
        return shown + (d.StateHash() & 1);
    }

    /// ns per call of <paramref name="f"/>, over a round of about <paramref name="ms"/> milliseconds.
    static double Round(Func<long> f, int ms)
    {
        long n = 1;
        for (;;)
        {
            Stopwatch w = Stopwatch.StartNew();
            for (long i = 0; i < n; i++)
            {
                sink += f();
            }
            double ns = w.Elapsed.TotalMilliseconds * 1e6;
            if (ns >= ms * 1e6)
            {
                return ns / n;
            }
            n *= ns < ms * 1e5 ? 10 : 2;
        }
    }

    static string Rounds(string what, Func<long> f, int rounds, int ms, double per)
    {
        List<double> ns = new List<double>();
        for (int i = 0; i < rounds; i++)
        {
            ns.Add(Round(f, ms) / per);
        }
        ns.Sort();
        return string.Format(System.Globalization.CultureInfo.InvariantCulture,
            "{0} median of {1} rounds of {2} ms: {3:F2} ns/entity/frame (range {4:F2} to {5:F2})",
            what, rounds, ms, ns[ns.Count / 2], ns[0], ns[ns.Count - 1]);
    }

    /// Mutants of every frame through one decoder: a Delivery each, never an exception, and the
    /// same frame or error from the binding's reader as from the generated Acked.Decode (the
    /// testee's check, halves/Acked.cs, which exits on a disagreement).
    static int Hostile(List<byte[]> frames, int mutants)
    {
        AckedDecoder<EntityState, StagedChange, Event, Input> d = Fresh();
        uint seed = 1;
        Func<int, int> next = n =>
        {
            seed = unchecked(seed * 1103515245 + 12345);
            return (int)((seed >> 8) % (uint)n);
        };
        int fed = 0;
        foreach (byte[] f in frames)
        {
            for (int m = 1; m <= mutants; m++)
            {
                byte[] b;
                if (m % 4 == 0)
                {
                    b = new byte[next(f.Length)];
                    Array.Copy(f, b, b.Length);
                }
                else
                {
                    b = (byte[])f.Clone();
                    b[next(b.Length)] = (byte)next(256);
                }
                // The binding's reader and the generated one: the same frame or the same error.
                AckedAdapters.SchemaAgrees(Reference.Schema, b);
                d.Deliver(b);
                fed++;
            }
        }
        return fed;
    }

    static int Main(string[] args)
    {
        if (args.Length < 1)
        {
            Console.Error.WriteLine("usage: mono bench.exe FRAMES [ENTITIES]   (hex, one frame a line)");
            return 2;
        }
        int rounds = int.Parse(Environment.GetEnvironmentVariable("BENCH_ROUNDS") ?? "9");
        int ms = int.Parse(Environment.GetEnvironmentVariable("BENCH_ROUND_MS") ?? "300");
        List<byte[]> frames = new List<byte[]>();
        foreach (string line in File.ReadAllLines(args[0]))
        {
            if (line.Trim().Length == 0)
            {
                continue;
            }
            byte[] b = Json.FromHex(line.Trim());
            if (b == null)
            {
                Console.Error.WriteLine("bench: a line is not hex");
                return 1;
            }
            frames.Add(b);
        }
        foreach (byte[] f in frames)
        {
            AckedAdapters.SchemaAgrees(Reference.Schema, f);
            if (Json.ToHex(Acked.Decode(f).Encode()) != Json.ToHex(f))
            {
                Console.Error.WriteLine("bench: a frame does not encode back to its bytes");
                return 1;
            }
        }
        AckedDecoder<EntityState, StagedChange, Event, Input> d = Fresh();
        int largest = 0;
        foreach (byte[] f in frames)
        {
            Delivery<Event> r = d.Deliver(f);
            if (r.Kind != DeliveryKind.Shown)
            {
                Console.Error.WriteLine("bench: a frame did not show: " + r.Kind + " " + r.Why);
                return 1;
            }
            if (r.Report.Check == false)
            {
                Console.Error.WriteLine("bench: a check failed at tick " + r.Tick);
                return 1;
            }
            largest = Math.Max(largest, r.Report.Changed.Count);
        }
        // What the delivery allocates: a fresh decoder over every frame once to warm the JIT,
        // then another, between two readings of the thread's allocation counter. What a frame
        // makes is its StagedChange[] (reused when a frame has as many changes as the last) and
        // one EntityState per entity it changes (a record the held states share).
        DeliverAll(frames);
        long before = GC.GetAllocatedBytesForCurrentThread();
        DeliverAll(frames);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        long changes = 0;
        foreach (byte[] f in frames)
        {
            changes += Acked.Decode(f).Changes.Length;
        }
        Console.WriteLine("c# AckedDecoder allocated " + allocated + " bytes over the " + frames.Count + " frames ("
            + (allocated / frames.Count) + " a frame, " + (allocated / Math.Max(1, changes)) + " a change of the "
            + changes + "), its fresh decoder included");
        int fed = Hostile(frames, 12);
        Console.WriteLine("c# AckedDecoder took " + fed + " mutants of the frames without an exception; "
            + "the schema's reader and the generated one agree on them and the frames");
        // The world's size: given, or the join's keyframe, which names every entity.
        int entities = args.Length > 1 ? int.Parse(args[1]) : largest;
        double per = (double)entities * frames.Count;
        string head = frames.Count + " frames, " + entities + " entities; mono " + MonoVersion() + ",";
        Console.WriteLine(Rounds("c# Acked.Decode:         " + head, () => DecodeAll(frames), rounds, ms, per));
        Console.WriteLine(Rounds("c# binding's reader:     " + head, () => ReadAll(frames), rounds, ms, per));
        Console.WriteLine(Rounds("c# AckedDecoder:         " + head, () => DeliverAll(frames), rounds, ms, per));
        if (sink == 0)
        {
            Console.WriteLine("(nothing was delivered)");
        }
        return 0;
    }

    static string MonoVersion()
    {
        Type t = Type.GetType("Mono.Runtime");
        if (t == null)
        {
            return "not mono";
        }
        System.Reflection.MethodInfo m = t.GetMethod("GetDisplayName",
            System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static);
        string v = m == null ? "?" : (string)m.Invoke(null, null);
        int space = v.IndexOf(' ');
        return space > 0 ? v.Substring(0, space) : v;
    }
}
