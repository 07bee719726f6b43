// The tutorial's C# client (docs/replicated-state.md): the runtime's AckedClientHalf over `Fleet`,
// the binding `ackwire gen --lang cs` writes for `state Fleet` of wire/ships.wire. Run by
// cs/test.sh on the stream the Rust server's run recorded (stream.txt), as ts/client.ts is: the
// same ticks shown with the same checks, the same drops, the same kind 7 bytes, the same ships at
// the end. Exits 1 at the first difference, naming its line.

using System;
using System.IO;
using System.Linq;
// ANCHOR: client
using Ackwire.Protocol;
using Ackwire.Runtime.Sessions;

sealed class ShipsClient
{
    // The decoder and the kind 7 writer, repeating the player's last 8 orders until the server has them.
    public readonly AckedClientHalf<Ship, StagedShipChange, SeaEvent, Helm> Half =
        new AckedClientHalf<Ship, StagedShipChange, SeaEvent, Helm>(Fleet.Schema, 8);

    /// <summary>A kind 6 frame arrived: it is shown, or dropped when stale or onto a base no longer held.</summary>
    public Delivery<SeaEvent> OnFrame(byte[] bytes)
    {
        Delivery<SeaEvent> d = Half.HandleFrame(new Now(0, 0), Fleet.Schema.FrameName, bytes);
        if (d.Kind == DeliveryKind.Shown)
        {
            foreach (SeaEvent e in d.Report.Events)
            {
                Console.WriteLine("ship " + e.Sunk.Ship + " sank");
            }
        }
        return d;
    }

    /// <summary>Once a tick: the player's order goes out with the ack of the newest frame shown.</summary>
    public byte[] OnTick(Helm helm)
    {
        Half.HandleTick(new Now(0, 0), helm);
        return Half.PollTransmit().Bytes;
    }

    /// <summary>What to draw: each ship's position in metres (`quant(i32, 1/16)` holds 1/16 m steps).</summary>
    public void Draw()
    {
        foreach (var s in Half.AllShown)
        {
            Console.WriteLine("ship " + s.Key + " at " + s.Value.X / 16.0 + " m, " + s.Value.Y / 16.0 + " m");
        }
    }
}
// ANCHOR_END: client

static class Replay
{
    static byte[] BytesOf(string hex)
    {
        return Enumerable.Range(0, hex.Length / 2).Select(i => Convert.ToByte(hex.Substring(2 * i, 2), 16)).ToArray();
    }

    static string HexOf(byte[] b)
    {
        return string.Concat(b.Select(x => x.ToString("x2")));
    }

    static int Main(string[] args)
    {
        string path = args.Length > 0 ? args[0] : "stream.txt";
        string[] lines = File.ReadAllLines(path).Where(l => l.Length > 0).ToArray();
        var client = new ShipsClient();
        int shown = 0, dropped = 0, acks = 0, ships = 0;
        for (int n = 0; n < lines.Length; n++)
        {
            string[] w = lines[n].Split(' ');
            string why = null;
            if (w[0] == "frame")
            {
                Delivery<SeaEvent> d = client.OnFrame(BytesOf(w[1]));
                n++;
                string[] next = n < lines.Length ? lines[n].Split(' ') : new[] { "" };
                if (next[0] == "shown" && d.Kind == DeliveryKind.Shown
                    && client.Half.ShownTick == uint.Parse(next[1]) && client.Half.StateHash().ToString("x8") == next[2])
                {
                    shown++;
                }
                else if (next[0] == "dropped" && (d.Kind == DeliveryKind.Stale || d.Kind == DeliveryKind.UnknownBase))
                {
                    dropped++;
                }
                else
                {
                    why = "shows tick " + client.Half.ShownTick + " as " + client.Half.StateHash().ToString("x8") + " (" + d.Kind + "), the Rust client: " + lines[n];
                }
            }
            else if (w[0] == "ack")
            {
                // The order the Rust client sent this tick is the newest input of its ack.
                Helm[] sent = Fleet.Schema.DecodeAck(BytesOf(w[1])).Inputs;
                string got = HexOf(client.OnTick(sent[sent.Length - 1]));
                if (got == w[1])
                {
                    acks++;
                }
                else
                {
                    why = "sent " + got + ", not " + w[1];
                }
            }
            else if (w[0] == "ship")
            {
                Ship s = client.Half.Shown(int.Parse(w[1]));
                if (s != null && s.X + " " + s.Y + " " + s.Health == string.Join(" ", w.Skip(2)))
                {
                    ships++;
                }
                else
                {
                    why = "holds ship " + w[1] + " otherwise";
                }
            }
            else
            {
                why = "unknown line " + w[0];
            }
            if (why != null)
            {
                Console.Error.WriteLine(path + ":" + (n + 1) + ": " + why);
                return 1;
            }
        }
        if (shown == 0 || dropped == 0 || acks == 0 || ships != client.Half.ShownCount)
        {
            Console.Error.WriteLine(path + ": " + shown + " shown, " + dropped + " dropped, " + acks + " acks, " + ships + " ships");
            return 1;
        }
        client.Draw();
        Console.WriteLine("replay: " + shown + " frames shown with the server's check, " + dropped + " dropped, " + acks + " acks, " + ships + " ships");
        return 0;
    }
}
