// The arena's C# client held to a recorded stream of the Rust server's run
// (examples/game/vectors/streams/arena.txt of kind 6, or with `coded` first arena_coded.txt of
// kind 13, written by `cargo run -p ackwire-example-game --example record_stream [coded]`), as
// examples/game/ts/replay.ts holds the TypeScript one: the runtime's AckedClientHalf over `Arena`
// or `CodedArena`, the schemas `ackwire gen --lang cs` writes for `state Arena` of the game's own
// layout. Every frame the Rust client received goes to it in arrival order; it
// must show the same tick with the same check (the hash of the server's S_N) or drop the frame as
// the Rust client did, and send the same kind 7 bytes at the end of every tick, carrying the same
// command. Exits 1 at the first difference, naming its line.

using System;
using System.IO;
using System.Linq;
using Ackwire.Protocol;
using Ackwire.Runtime.Sessions;

static class Replay
{
    static byte[] BytesOf(string hex)
    {
        var b = new byte[hex.Length / 2];
        for (int i = 0; i < b.Length; i++)
        {
            b[i] = Convert.ToByte(hex.Substring(2 * i, 2), 16);
        }
        return b;
    }

    static string HexOf(byte[] b)
    {
        return string.Concat(b.Select(x => x.ToString("x2")));
    }

    static int Main(string[] args)
    {
        // `coded` first: the stream is kind 13's (CodedArena), else kind 6's (Arena).
        bool coded = args.Length > 0 && args[0] == "coded";
        int at = coded ? 1 : 0;
        string path = args.Length > at ? args[at] : "vectors/streams/arena.txt";
        IAckedSchema<Entity, StagedEntityChange, ArenaEvent, Command> schema = coded
            ? (IAckedSchema<Entity, StagedEntityChange, ArenaEvent, Command>)CodedArena.Schema
            : Arena.Schema;
        string[] lines = File.ReadAllLines(path).Where(l => l.Length > 0).ToArray();
        var client = new AckedClientHalf<Entity, StagedEntityChange, ArenaEvent, Command>(schema, 16);
        int frames = 0, shown = 0, dropped = 0, acks = 0;
        for (int n = 0; n < lines.Length; n++)
        {
            string[] words = lines[n].Split(' ');
            string where = path + ":" + (n + 1) + ": ";
            if (words[0] == "frame")
            {
                frames++;
                Delivery<ArenaEvent> d = client.HandleFrame(new Now(0, (ulong)n), schema.FrameName, BytesOf(words[1]));
                n++;
                string[] next = n < lines.Length ? lines[n].Split(' ') : new[] { "" };
                where = path + ":" + (n + 1) + ": ";
                if (next[0] == "shown")
                {
                    string got = client.StateHash().ToString("x8");
                    if (d.Kind != DeliveryKind.Shown || client.ShownTick != uint.Parse(next[1]) || got != next[2])
                    {
                        Console.Error.WriteLine(where + "the client shows tick " + client.ShownTick + " as " + got + " (" + d.Kind + "), not " + next[1] + " as " + next[2]);
                        return 1;
                    }
                    shown++;
                }
                else if (next[0] == "dropped")
                {
                    if (d.Kind != DeliveryKind.Stale && d.Kind != DeliveryKind.UnknownBase)
                    {
                        Console.Error.WriteLine(where + "the client did not drop the frame (" + d.Kind + "); the Rust client did");
                        return 1;
                    }
                    dropped++;
                }
                else
                {
                    Console.Error.WriteLine(where + "a frame is followed by " + next[0]);
                    return 1;
                }
            }
            else if (words[0] == "ack")
            {
                // The command the Rust client sent this tick is the newest input of its ack.
                Command[] inputs = Arena.Schema.DecodeAck(BytesOf(words[1])).Inputs;
                if (inputs.Length == 0)
                {
                    Console.Error.WriteLine(where + "an ack without a command");
                    return 1;
                }
                client.HandleTick(new Now(0, (ulong)n), inputs[inputs.Length - 1]);
                Transmit t = client.PollTransmit();
                if (t == null || client.PollTransmit() != null || HexOf(t.Bytes) != words[1])
                {
                    Console.Error.WriteLine(where + "the client sent " + (t == null ? "nothing" : HexOf(t.Bytes)) + ", not " + words[1]);
                    return 1;
                }
                acks++;
            }
            else
            {
                Console.Error.WriteLine(where + "unknown line " + words[0]);
                return 1;
            }
        }
        if (shown == 0 || dropped == 0 || acks == 0)
        {
            Console.Error.WriteLine(path + ": a stream of " + shown + " shown, " + dropped + " dropped, " + acks + " acks");
            return 1;
        }
        Console.WriteLine("replay: " + frames + " frames: " + shown + " shown with the server's check, " + dropped
            + " dropped as the Rust client did; " + acks + " acks byte for byte; at tick " + client.ShownTick
            + " " + client.ShownCount + " entities shown");
        return 0;
    }
}
