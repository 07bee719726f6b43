// Tests of Sessions/Half.cs: the FNV-1a 32 every state hash uses, the outbox's limit and the
// u32 tick check. Found by RuntimeTests.Main through the `Tests` list.

using System;
using System.Collections.Generic;
using Ackwire.Runtime.Sessions;
using static Harness;

static class HalfTests
{
    /// <summary>This file's tests, run by RuntimeTests.Main.</summary>
    public static readonly KeyValuePair<string, Action>[] Tests =
    {
        new KeyValuePair<string, Action>("fnv1a32", Fnv1a32),
        new KeyValuePair<string, Action>("outbox_limit", OutboxLimit),
        new KeyValuePair<string, Action>("tick32", Tick32),
    };

    /// The published FNV-1a 32 values (the empty input is the offset basis), and a hash
    /// continued in pieces equals the hash of the whole.
    /// CHECK-1.
    static void Fnv1a32()
    {
        Equal(0x811c9dc5u, Fnv.Fnv1a32(new byte[0]), "fnv of nothing");
        Equal(0xe40c292cu, Fnv.Fnv1a32(new byte[] { (byte)'a' }), "fnv of a");
        byte[] foobar = System.Text.Encoding.ASCII.GetBytes("foobar");
        Equal(0xbf9cf968u, Fnv.Fnv1a32(foobar), "fnv of foobar");
        Equal(0xbf9cf968u, Fnv.Fnv1a32(foobar, 3, 3, Fnv.Fnv1a32(foobar, 0, 3)), "in pieces");
        Equal(0xe40c292cu, Fnv.Byte(Fnv.Basis, (byte)'a'), "one byte");
    }

    /// Past MAX_QUEUED the oldest unreliable frame goes, never a reliable one, and the queue
    /// hands out the rest in order.
    /// GEN-8.
    static void OutboxLimit()
    {
        Outbox o = new Outbox();
        o.Push(new Transmit("acked", new byte[] { 0 }, true));
        for (int i = 1; i < Outbox.MaxQueued; i++)
        {
            o.Push(new Transmit("ack", new byte[] { (byte)i }, false));
        }
        Equal(Outbox.MaxQueued, o.Count, "full");
        o.Push(new Transmit("ack", new byte[] { 0xee }, false));
        Equal(Outbox.MaxQueued, o.Count, "still full");
        Transmit first = o.Poll();
        Equal(true, first.Reliable, "the reliable frame stays");
        Equal((byte)2, o.Poll().Bytes[0], "frame 1 was the oldest unreliable one, dropped");
        int left = 0;
        Transmit last = null;
        for (Transmit t = o.Poll(); t != null; t = o.Poll())
        {
            left++;
            last = t;
        }
        Equal(Outbox.MaxQueued - 2, left, "the rest");
        Equal((byte)0xee, last.Bytes[0], "the newest last");
        Equal(0, o.Count, "empty");
        Equal(null, o.Poll(), "nothing more");
    }

    static void Tick32()
    {
        Equal(uint.MaxValue, Session.Tick32(uint.MaxValue), "the last u32 tick");
        try
        {
            Session.Tick32((ulong)uint.MaxValue + 1);
        }
        catch (SessionError e)
        {
            Equal("tick_range", e.Kind, "kind");
            return;
        }
        throw new Failure("2^32 accepted as a tick");
    }
}
