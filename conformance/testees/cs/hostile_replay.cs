// A hostile peer against the C# session halves, as conformance/testees/ts/src/hostile.ts is
// against the TypeScript ones: every frame the stream vectors deliver
// (vectors/streams/<session>/, for every session whose two halves Sessions.cs registers),
// replayed into fresh halves with mutations between the real ones (bits flipped, bytes cut,
// inserted or replaced, whole frames of random bytes, frames sent under another name). A half
// may refuse a frame only with a SessionError; any other exception escaping a half is a bug,
// printed, and exit 1.
//
// Run from the repository root after build.sh:
// `mono conformance/testees/cs/build/hostile_replay.exe [ROUNDS] [SEED]` (default 200 rounds per
// vector, seed 1).

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

static class HostileReplay
{
    /// SplitMix64, as the simulator's and hostile.ts's: deterministic from the seed.
    sealed class Rng
    {
        ulong s;

        public Rng(ulong seed)
        {
            s = seed;
        }

        uint Next()
        {
            unchecked
            {
                s += 0x9e3779b97f4a7c15UL;
                ulong z = s;
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
                return (uint)((z ^ (z >> 31)) >> 32);
            }
        }

        public int Below(int n)
        {
            return n <= 0 ? 0 : (int)(Next() % (uint)n);
        }
    }

    static byte[] Mutate(Rng rng, byte[] bytes)
    {
        List<byte> b = new List<byte>(bytes);
        switch (rng.Below(6))
        {
            case 0:
                if (b.Count > 0)
                {
                    int i = rng.Below(b.Count);
                    b[i] = (byte)(b[i] ^ (1 << rng.Below(8)));
                }
                break;
            case 1:
                int keep = rng.Below(b.Count + 1);
                b.RemoveRange(keep, b.Count - keep);
                break;
            case 2:
                b.Insert(rng.Below(b.Count + 1), (byte)rng.Below(256));
                break;
            case 3:
                if (b.Count > 0)
                {
                    byte[] edges = { 0x00, 0x7f, 0x80, 0xff };
                    b[rng.Below(b.Count)] = edges[rng.Below(4)];
                }
                break;
            case 4:
                {
                    // A run of 0xff: the longest varints and the largest counts.
                    int at = rng.Below(b.Count + 1);
                    b.InsertRange(at, Enumerable.Repeat((byte)0xff, 1 + rng.Below(12)));
                    break;
                }
            default:
                {
                    byte[] r = new byte[rng.Below(64)];
                    for (int i = 0; i < r.Length; i++)
                    {
                        r[i] = (byte)rng.Below(256);
                    }
                    return r;
                }
        }
        return b.ToArray();
    }

    static readonly string[] FrameNames =
    {
        "datagram", "spawn", "despawn", "full_frame", "datagram_ack", "snapshot", "snapshot_ack",
        "delta_plan", "delta_ack", "acked", "ack", "acked_packed", "acked_coded",
    };

    static int Main(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 200;
        Rng rng = new Rng(args.Length > 1 ? ulong.Parse(args[1], CultureInfo.InvariantCulture) : 1);
        long delivered = 0;
        long refused = 0;
        List<string> bugs = new List<string>();
        List<string> sessions = new List<string>();
        foreach (string name in Sessions.Halves.Names)
        {
            if (name.EndsWith("_server", StringComparison.Ordinal))
            {
                string s = name.Substring(0, name.Length - "_server".Length);
                if (Sessions.Halves.Find(s + "_client") != null)
                {
                    sessions.Add(s);
                }
            }
        }
        foreach (string session in sessions)
        {
            string dir = Path.Combine("vectors", Path.Combine("streams", session));
            if (!Directory.Exists(dir))
            {
                // A session whose streams are not recorded yet has nothing to replay.
                Console.Error.WriteLine("hostile_replay: no stream vectors for " + session + " in " + dir);
                continue;
            }
            string[] files = Directory.GetFiles(dir, "*.json");
            Array.Sort(files, StringComparer.Ordinal);
            foreach (string file in files)
            {
                JsonValue v = JsonValue.Parse(File.ReadAllText(file));
                JsonValue parameters = v.Get("params") ?? new JsonValue { Kind = JsonKind.Null };
                List<JsonValue> steps = v.Get("steps").Items;
                for (int round = 0; round < rounds; round++)
                {
                    ITesteeSession server = Sessions.Halves.Find(session + "_server")(parameters);
                    ITesteeSession client = Sessions.Halves.Find(session + "_client")(parameters);
                    foreach (JsonValue step in steps)
                    {
                        ITesteeSession half = step.Get("side").Text == "server" ? server : client;
                        ulong at = Sessions.AsU64(step.Get("at_ms")) ?? 0;
                        JsonValue action = step.Get("action");
                        JsonValue advance = action.Get("advance");
                        JsonValue deliver = action.Get("deliver");
                        try
                        {
                            if (advance != null)
                            {
                                JsonValue ops = advance.Get("ops");
                                half.Advance(Sessions.AsU64(advance.Get("tick")) ?? 0, at,
                                    ops != null && ops.Kind == JsonKind.Array ? ops.Items : new List<JsonValue>());
                                continue;
                            }
                            if (deliver == null)
                            {
                                continue;
                            }
                            string frame = deliver.Get("frame").Text;
                            byte[] real = Json.FromHex(deliver.Get("hex").Text);
                            // A hostile frame or two before the real one, sometimes under another name.
                            for (int n = rng.Below(3); n > 0; n--)
                            {
                                string name = rng.Below(8) == 0 ? FrameNames[rng.Below(FrameNames.Length)] : frame;
                                byte[] bytes = Mutate(rng, real);
                                delivered++;
                                try
                                {
                                    JsonWriter report = new JsonWriter();
                                    half.Deliver(at, name, bytes, report);
                                    string r = report.ToString();
                                    if (r.StartsWith("{\"error\"", StringComparison.Ordinal)
                                        || r.StartsWith("{\"dropped\"", StringComparison.Ordinal)
                                        || r.StartsWith("{\"ignored\"", StringComparison.Ordinal)
                                        || r.StartsWith("{\"refused\"", StringComparison.Ordinal))
                                    {
                                        refused++;
                                    }
                                }
                                catch (SessionError)
                                {
                                    refused++;
                                }
                                half.Take();
                                half.StateHash();
                            }
                            delivered++;
                            half.Deliver(at, frame, real, new JsonWriter());
                            half.Take();
                            half.StateHash();
                        }
                        catch (SessionError)
                        {
                            // A refusal: what a half may do with a peer's input.
                        }
                        catch (Exception e)
                        {
                            bugs.Add(Path.GetFileName(file) + " (" + session + ") round " + round + ": " + e);
                        }
                    }
                }
            }
        }
        Console.WriteLine(delivered + " frames delivered to the " + string.Join(", ", sessions) + " halves ("
            + refused + " hostile ones refused), " + bugs.Count + " other exceptions");
        foreach (string b in bugs.Take(20))
        {
            Console.WriteLine(b);
        }
        return bugs.Count == 0 ? 0 : 1;
    }
}
