// The testee protocol's session operations (conformance/PROTOCOL.md, "Session operations") over
// the C# session machines: `open` makes a half by name, the other ops drive it by handle. The
// machines are the runtime's (gen/Runtime/Sessions/), bound to the reference protocol by its
// generated schemas (gen/Reference.cs, gen/Reference{Datagram,Baseline,Delta}.cs) and its
// presenter (gen/reference/, copied from csharp/reference/ by build.sh); each adapter of
// halves/ only translates the protocol's JSON (params, world ops, reports) into a half's calls,
// as conformance/src/sessions/ does for the Rust codec.

using System;
using System.Collections.Generic;
using System.Globalization;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>One open half, as the session ops see it. Time and ticks are arguments.</summary>
interface ITesteeSession
{
    /// <summary>A server tick passes and the world does <paramref name="ops"/> (a client half refuses any op).</summary>
    void Advance(ulong tick, ulong nowMs, List<JsonValue> ops);

    /// <summary>The network delivers <paramref name="frame"/>; the half writes its report (one JSON value, compared: PROTOCOL.md "Reports").</summary>
    void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report);

    /// <summary>Everything the half wants to send now, in order.</summary>
    List<Transmit> Take();

    /// <summary>The FNV-1a 32 of the half's state, or null for a half without one.</summary>
    uint? StateHash();
}

/// <summary>Opens a half from the <c>params</c> of <c>open</c> (a JsonValue of kind Null when absent); throws an exception whose message says what is wrong.</summary>
delegate ITesteeSession Opener(JsonValue parameters);

/// <summary>Every half this testee implements, by name, in the order <c>hello</c> lists them.</summary>
sealed class Registry
{
    readonly List<KeyValuePair<string, Opener>> openers = new List<KeyValuePair<string, Opener>>();

    /// <summary>Registers half <paramref name="name"/>.</summary>
    public void Add(string name, Opener open)
    {
        openers.Add(new KeyValuePair<string, Opener>(name, open));
    }

    /// <summary>The opener of <paramref name="name"/>, or null.</summary>
    public Opener Find(string name)
    {
        foreach (KeyValuePair<string, Opener> o in openers)
        {
            if (o.Key == name)
            {
                return o.Value;
            }
        }
        return null;
    }

    /// <summary>The registered halves' names, in order.</summary>
    public IEnumerable<string> Names
    {
        get
        {
            foreach (KeyValuePair<string, Opener> o in openers)
            {
                yield return o.Key;
            }
        }
    }
}

/// <summary>The session ops, and the JSON reading the adapters share.</summary>
static class Sessions
{
    /// <summary>
    /// The modules of halves/, each a static Register adding its halves. One line per module:
    /// the helpers adding modules each add their own line, nothing else.
    /// </summary>
    static readonly Action<Registry>[] Modules =
    {
        // acked (`docs/spec/acked.md`):
        AckedAdapters.Register,

        // datagram, baseline, delta (seeds 001-004):
        DatagramHalves.Register, BaselineHalves.Register, DeltaHalves.Register,

    };

    /// <summary>The registry of every module's halves.</summary>
    public static readonly Registry Halves = MakeRegistry();

    static Registry MakeRegistry()
    {
        Registry r = new Registry();
        foreach (Action<Registry> m in Modules)
        {
            m(r);
        }
        return r;
    }

    static readonly Dictionary<ulong, ITesteeSession> open = new Dictionary<ulong, ITesteeSession>();
    static ulong next;

    /// <summary>
    /// Writes the reply body (after the id) to session op <paramref name="op"/>. A half's refusal
    /// (a SessionError, or any other exception an adapter throws) is a <c>bad_request</c> error
    /// with its message: nothing a request holds escapes as an exception.
    /// </summary>
    public static void Answer(string op, JsonValue request, JsonWriter j)
    {
        if (op == "open")
        {
            JsonValue s = request.Get("session");
            string name = s != null && s.Kind == JsonKind.String ? s.Text : "";
            Opener opener = Halves.Find(name);
            if (opener == null)
            {
                Testee.Unimplemented(j, "session `" + name + "` is not implemented");
                return;
            }
            ITesteeSession half;
            try
            {
                half = opener(request.Get("params") ?? new JsonValue { Kind = JsonKind.Null });
            }
            catch (Exception e)
            {
                Testee.BadRequest(j, e.Message);
                return;
            }
            next++;
            open[next] = half;
            j.Name("ok");
            j.BeginObject();
            j.Name("handle");
            j.Uint(next);
            j.EndObject();
            return;
        }
        ulong? handle = AsU64(request.Get("handle"));
        if (handle == null)
        {
            Testee.BadRequest(j, "a session op needs a `handle`");
            return;
        }
        if (op == "close")
        {
            if (open.Remove(handle.Value))
            {
                j.Name("ok");
                j.BeginObject();
                j.EndObject();
            }
            else
            {
                Testee.BadRequest(j, "no session " + handle.Value);
            }
            return;
        }
        ITesteeSession session;
        if (!open.TryGetValue(handle.Value, out session))
        {
            Testee.BadRequest(j, "no session " + handle.Value);
            return;
        }
        ulong nowMs = AsU64(request.Get("now_ms")) ?? 0;
        // The reply is written to a writer of its own first, so that a half failing halfway
        // through its report leaves no half-written member behind.
        JsonWriter ok = new JsonWriter();
        try
        {
            switch (op)
            {
                case "advance":
                    {
                        ulong tick = AsU64(request.Get("tick")) ?? 0;
                        JsonValue ops = request.Get("ops");
                        List<JsonValue> list = ops != null && ops.Kind == JsonKind.Array ? ops.Items : new List<JsonValue>();
                        session.Advance(tick, nowMs, list);
                        ok.BeginObject();
                        ok.EndObject();
                        break;
                    }
                case "deliver":
                    {
                        JsonValue f = request.Get("frame");
                        JsonValue h = request.Get("hex");
                        byte[] bytes = Json.FromHex(h != null && h.Kind == JsonKind.String ? h.Text : "");
                        if (bytes == null)
                        {
                            Testee.BadRequest(j, "`hex` is not a hex string");
                            return;
                        }
                        ok.BeginObject();
                        ok.Name("report");
                        session.Deliver(nowMs, f != null && f.Kind == JsonKind.String ? f.Text : "", bytes, ok);
                        ok.EndObject();
                        break;
                    }
                case "take":
                    {
                        List<Transmit> frames = session.Take();
                        ok.BeginObject();
                        ok.Name("frames");
                        ok.BeginArray();
                        foreach (Transmit t in frames)
                        {
                            ok.BeginObject();
                            ok.Name("frame");
                            ok.String(t.Frame);
                            ok.Name("hex");
                            ok.String(Json.ToHex(t.Bytes));
                            ok.Name("reliable");
                            ok.Bool(t.Reliable);
                            ok.EndObject();
                        }
                        ok.EndArray();
                        ok.EndObject();
                        break;
                    }
                case "state_hash":
                    {
                        uint? hash = session.StateHash();
                        if (hash == null)
                        {
                            Testee.Unimplemented(j, "this session half has no state hash");
                            return;
                        }
                        ok.BeginObject();
                        ok.Name("hash");
                        ok.Uint(hash.Value);
                        ok.EndObject();
                        break;
                    }
                default:
                    Testee.Unimplemented(j, "unknown op `" + op + "`");
                    return;
            }
        }
        catch (Exception e)
        {
            Testee.BadRequest(j, e.Message);
            return;
        }
        j.Name("ok");
        j.Raw(ok.ToString());
    }

    /// <summary>Everything <paramref name="half"/> has to send now, in order: an adapter's <c>take</c>.</summary>
    public static List<Transmit> Drain<TTick, TReport>(ISessionHalf<TTick, TReport> half)
    {
        List<Transmit> out_ = new List<Transmit>();
        for (Transmit t = half.PollTransmit(); t != null; t = half.PollTransmit())
        {
            out_.Add(t);
        }
        return out_;
    }

    /// <summary>A JSON number as serde's <c>as_u64</c> reads it: a non-negative integer that fits 64 bits, else null.</summary>
    public static ulong? AsU64(JsonValue v)
    {
        ulong n;
        if (v != null && v.Kind == JsonKind.Number
            && ulong.TryParse(v.Text, NumberStyles.None, CultureInfo.InvariantCulture, out n))
        {
            return n;
        }
        return null;
    }

    /// <summary>A JSON number as a double, else null.</summary>
    public static double? AsF64(JsonValue v)
    {
        double d;
        if (v != null && v.Kind == JsonKind.Number
            && double.TryParse(v.Text, NumberStyles.Float, CultureInfo.InvariantCulture, out d))
        {
            return d;
        }
        return null;
    }

    /// <summary><paramref name="v"/> as an object's members, or none when it is not an object (absent params); throws when it is neither an object nor null.</summary>
    public static JsonValue Params(JsonValue v, string session)
    {
        if (v == null || v.Kind == JsonKind.Null)
        {
            return new JsonValue { Kind = JsonKind.Object, Members = new List<KeyValuePair<string, JsonValue>>() };
        }
        if (v.Kind != JsonKind.Object)
        {
            throw new ArgumentException(session + " params must be an object");
        }
        return v;
    }
}
