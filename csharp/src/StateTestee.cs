// The acked session halves of a spec's own `state` for a generated testee (conformance/PROTOCOL.md,
// "Session operations"): what `ackwire conform --spec` replays the stream vectors of
// `ackwire vectors --spec` with. Ported from conformance/src/sessions/state/mod.rs, as the
// TypeScript runtime's state_testee.ts: one session pair per frame the state is sent in, named after
// the frame; `<frame>_server` is the AckedEncoder fed by a world every client sees whole, over the
// input schedule; `<frame>_client` the AckedClientHalf. World ops: `spawn`, `set` (a record in its
// JSON form), `despawn`, `event`; the client's ops are the player's `input` for the tick. Reports
// are the reference pair's. Written beside the codec with `--testee` only.

using System;
using System.Collections.Generic;
using Ackwire.Runtime.Sessions;

namespace Ackwire.Runtime
{
    /// <summary>One frame a state is sent in, as the generated testee names it.</summary>
    public sealed class StateFrame<R, C, E, I>
        where R : class
    {
        /// <summary>The frame's snake_case name: the session pair's.</summary>
        public string Frame;
        /// <summary>The acked schema of the frame, generated from the state.</summary>
        public IAckedSchema<R, C, E, I> Schema;
        /// <summary>A record from its JSON form (the world ops' `spawn` and `set`).</summary>
        public Func<JsonValue, R> RecordFromJson;
        /// <summary>An event from its JSON form (the world ops' `event`).</summary>
        public Func<JsonValue, E> EventFromJson;
        /// <summary>An input from its JSON form (the client's `input` op).</summary>
        public Func<JsonValue, I> InputFromJson;
        /// <summary>Writes an event in its JSON form (a report's events).</summary>
        public Action<E, JsonWriter> EventToJson;
    }

    /// <summary>A client half's delivery as the testee protocol reports it (conformance/PROTOCOL.md):
    /// the state shown with its report, or why the frame was dropped, or the decode error's kind.
    /// The reference testee's acked client and every state's client write it alike.</summary>
    public static class DeliveryJson
    {
        /// <summary>Writes <paramref name="d"/> as one object, each event through
        /// <paramref name="eventToJson"/>.</summary>
        public static void Write<E>(JsonWriter j, Delivery<E> d, Action<E, JsonWriter> eventToJson)
        {
            j.BeginObject();
            switch (d.Kind)
            {
                case DeliveryKind.Shown:
                    {
                        FrameReport<E> r = d.Report;
                        j.Name("shown");
                        j.BeginObject();
                        j.Name("tick");
                        j.Uint(r.Tick);
                        j.Name("base_tick");
                        j.Uint(r.BaseTick);
                        j.Name("keyframe");
                        j.Bool(r.Keyframe);
                        j.Name("changed");
                        j.String(string.Join(" ", r.Changed));
                        List<string> parts = new List<string>();
                        for (int i = 0; i < r.MeasuredEids.Count; i++)
                        {
                            parts.Add(r.MeasuredEids[i] + "@" + r.MeasuredTicks[i]);
                        }
                        j.Name("measured");
                        j.String(string.Join(" ", parts));
                        j.Name("gone");
                        j.String(string.Join(" ", r.Gone));
                        parts.Clear();
                        for (int i = 0; i < r.TierEids.Count; i++)
                        {
                            parts.Add(r.TierEids[i] + ":" + (r.TierFull[i] ? "full" : "quantized"));
                        }
                        j.Name("tiers");
                        j.String(string.Join(" ", parts));
                        j.Name("events");
                        j.BeginArray();
                        for (int i = 0; i < r.Events.Count; i++)
                        {
                            j.BeginObject();
                            j.Name("serial");
                            j.Uint(r.EventSerials[i]);
                            j.Name("event");
                            eventToJson(r.Events[i], j);
                            j.EndObject();
                        }
                        j.EndArray();
                        j.Name("check");
                        if (r.Check.HasValue)
                        {
                            j.Bool(r.Check.Value);
                        }
                        else
                        {
                            j.Null();
                        }
                        j.EndObject();
                        break;
                    }
                case DeliveryKind.Stale:
                    j.Name("dropped");
                    j.String("stale");
                    j.Name("tick");
                    j.Uint(d.Tick);
                    break;
                case DeliveryKind.UnknownBase:
                    j.Name("dropped");
                    j.String("unknown_base");
                    j.Name("tick");
                    j.Uint(d.Tick);
                    j.Name("base_tick");
                    j.Uint(d.BaseTick);
                    break;
                case DeliveryKind.Undecodable:
                    j.Name("error");
                    j.String(Errors.KindName(d.Error.Kind));
                    break;
                case DeliveryKind.Inapplicable:
                    j.Name("dropped");
                    j.String("inapplicable");
                    j.Name("tick");
                    j.Uint(d.Tick);
                    j.Name("why");
                    j.String(d.Why);
                    break;
            }
            j.EndObject();
        }
    }
    /// <summary>The session halves of a testee's states.</summary>
    public sealed class StateSessions : ITesteeSessions
    {
        interface IHalf
        {
            void Advance(ulong tick, List<JsonValue> ops);

            void Deliver(string frame, byte[] bytes, JsonWriter j);

            List<Transmit> Take();

            uint? StateHash();
        }

        readonly List<KeyValuePair<string, Func<JsonValue, IHalf>>> openers = new List<KeyValuePair<string, Func<JsonValue, IHalf>>>();
        readonly Dictionary<ulong, IHalf> open = new Dictionary<ulong, IHalf>();
        ulong next;

        /// <summary>The frame <paramref name="frame"/> of <paramref name="schema"/>, its types read and written by the generated codec's JSON methods.</summary>
        public static StateFrame<R, C, E, I> Frame<R, C, E, I>(string frame, IAckedSchema<R, C, E, I> schema,
            Func<JsonValue, R> record, Func<JsonValue, E> @event, Func<JsonValue, I> input, Action<E, JsonWriter> eventToJson)
            where R : class
        {
            return new StateFrame<R, C, E, I>
            {
                Frame = frame,
                Schema = schema,
                RecordFromJson = record,
                EventFromJson = @event,
                InputFromJson = input,
                EventToJson = eventToJson,
            };
        }

        /// <summary>Adds the server and client halves of <paramref name="f"/>.</summary>
        public StateSessions Add<R, C, E, I>(StateFrame<R, C, E, I> f)
            where R : class
        {
            openers.Add(new KeyValuePair<string, Func<JsonValue, IHalf>>(f.Frame + "_server", p => new Server<R, C, E, I>(f)));
            openers.Add(new KeyValuePair<string, Func<JsonValue, IHalf>>(f.Frame + "_client", p =>
            {
                ulong? keep = AsU64(p == null ? null : p.Get("keep_inputs"));
                return new Client<R, C, E, I>(f, keep ?? 16);
            }));
            return this;
        }

        /// <inheritdoc/>
        public IEnumerable<string> Names
        {
            get
            {
                foreach (KeyValuePair<string, Func<JsonValue, IHalf>> o in openers)
                {
                    yield return o.Key;
                }
            }
        }

        static ulong? AsU64(JsonValue v)
        {
            ulong n;
            if (v != null && v.Kind == JsonKind.Number && ulong.TryParse(v.Text, out n))
            {
                return n;
            }
            return null;
        }

        static ushort Eid(string kind, JsonValue body)
        {
            ulong? e = AsU64(body == null ? null : body.Get("eid"));
            if (e == null || e.Value > ushort.MaxValue)
            {
                throw new ArgumentException("`" + kind + "` needs a u16 `eid`");
            }
            return (ushort)e.Value;
        }

        sealed class Server<R, C, E, I> : IHalf
            where R : class
        {
            readonly StateFrame<R, C, E, I> f;
            readonly SortedDictionary<ushort, ServerEntry<R>> world = new SortedDictionary<ushort, ServerEntry<R>>();
            readonly Dictionary<ushort, ulong> lives = new Dictionary<ushort, ulong>();
            readonly ScheduledInputs<I> inputs = new ScheduledInputs<I>(new InputWindow(4, 64));
            readonly AckedEncoder<R, C, E, I> enc;
            readonly List<Transmit> out_ = new List<Transmit>();
            ulong tick;

            public Server(StateFrame<R, C, E, I> f)
            {
                this.f = f;
                enc = new AckedEncoder<R, C, E, I>(f.Schema, inputs);
            }

            public void Advance(ulong t, List<JsonValue> ops)
            {
                tick = t;
                List<E> events = new List<E>();
                foreach (JsonValue op in ops)
                {
                    if (op.Kind != JsonKind.Object || op.Members.Count != 1)
                    {
                        throw new ArgumentException("a world op is an object with one key");
                    }
                    string kind = op.Members[0].Key;
                    JsonValue body = op.Members[0].Value;
                    switch (kind)
                    {
                        case "spawn":
                            {
                                ushort eid = Eid(kind, body);
                                ulong life;
                                lives.TryGetValue(eid, out life);
                                life++;
                                lives[eid] = life;
                                world[eid] = new ServerEntry<R>(eid, life, f.RecordFromJson(body.Get("record")));
                                break;
                            }
                        case "set":
                            {
                                ushort eid = Eid(kind, body);
                                ServerEntry<R> held;
                                if (!world.TryGetValue(eid, out held))
                                {
                                    throw new ArgumentException("`set` of entity " + eid + ", which the world does not hold");
                                }
                                world[eid] = new ServerEntry<R>(eid, held.Life, f.RecordFromJson(body.Get("record")));
                                break;
                            }
                        case "despawn":
                            world.Remove(Eid(kind, body));
                            break;
                        case "event":
                            events.Add(f.EventFromJson(body));
                            break;
                        default:
                            throw new ArgumentException("unknown world op `" + kind + "`");
                    }
                }
                // SRV-12: inputs execute on the tick they name; this world only consumes them.
                I due;
                while (inputs.ExecuteDue(t, out due))
                {
                }
                ServerEntry<R>[] state = new ServerEntry<R>[world.Count];
                world.Values.CopyTo(state, 0);
                Outgoing<C, E> sent = enc.Encode((uint)t, state, events);
                out_.Add(new Transmit(f.Schema.FrameName, sent.Bytes, sent.Reliable));
            }

            public void Deliver(string frame, byte[] bytes, JsonWriter j)
            {
                if (frame != f.Schema.AckName)
                {
                    throw new ArgumentException("the server takes `" + f.Schema.AckName + "` frames, not `" + frame + "`");
                }
                AckVerdict v;
                try
                {
                    v = enc.Receive(tick, bytes);
                }
                catch (DecodeError e)
                {
                    j.BeginObject();
                    j.Name("error");
                    j.String(Errors.KindName(e.Kind));
                    j.EndObject();
                    return;
                }
                j.BeginObject();
                j.Name("ack");
                j.String(v == AckVerdict.Taken ? "taken" : v == AckVerdict.Old ? "old" : v == AckVerdict.Unknown ? "unknown" : v == AckVerdict.Nothing ? "nothing" : "keyframe_requested");
                j.Name("base");
                if (enc.Acked.HasValue)
                {
                    j.Uint(enc.Acked.Value);
                }
                else
                {
                    j.Null();
                }
                j.Name("last_seq");
                j.Uint(enc.LastSeq);
                j.Name("keyframes");
                j.Uint(enc.Counters.Keyframes);
                j.Name("events_expired");
                j.Uint(enc.Counters.EventsExpired);
                j.EndObject();
            }

            public List<Transmit> Take()
            {
                List<Transmit> taken = new List<Transmit>(out_);
                out_.Clear();
                return taken;
            }

            public uint? StateHash()
            {
                return null;
            }
        }

        sealed class Client<R, C, E, I> : IHalf
            where R : class
        {
            readonly StateFrame<R, C, E, I> f;
            readonly AckedClientHalf<R, C, E, I> half;

            public Client(StateFrame<R, C, E, I> f, ulong keep)
            {
                this.f = f;
                half = new AckedClientHalf<R, C, E, I>(f.Schema, keep);
            }

            public void Advance(ulong tick, List<JsonValue> ops)
            {
                I input = default(I);
                foreach (JsonValue op in ops)
                {
                    JsonValue i = op.Get("input");
                    if (i == null)
                    {
                        throw new ArgumentException("a client op is {\"input\": ...}");
                    }
                    input = f.InputFromJson(i);
                }
                half.HandleTick(new Now(tick, 0), input);
            }

            public void Deliver(string frame, byte[] bytes, JsonWriter j)
            {
                if (frame != f.Schema.FrameName)
                {
                    throw new ArgumentException("the client takes `" + f.Schema.FrameName + "` frames, not `" + frame + "`");
                }
                Delivery<E> d = half.HandleFrame(new Now(0, 0), frame, bytes);
                DeliveryJson.Write(j, d, f.EventToJson);
            }

            public List<Transmit> Take()
            {
                List<Transmit> taken = new List<Transmit>();
                for (Transmit t = half.PollTransmit(); t != null; t = half.PollTransmit())
                {
                    taken.Add(t);
                }
                return taken;
            }

            public uint? StateHash()
            {
                return half.StateHash();
            }
        }

        /// <inheritdoc/>
        public void Answer(string op, JsonValue request, JsonWriter j)
        {
            if (op == "open")
            {
                JsonValue s = request.Get("session");
                string name = s != null && s.Kind == JsonKind.String ? s.Text : "";
                foreach (KeyValuePair<string, Func<JsonValue, IHalf>> o in openers)
                {
                    if (o.Key == name)
                    {
                        next++;
                        open[next] = o.Value(request.Get("params"));
                        j.Name("ok");
                        j.BeginObject();
                        j.Name("handle");
                        j.Uint(next);
                        j.EndObject();
                        return;
                    }
                }
                Testee.Unimplemented(j, "session `" + name + "` is not implemented");
                return;
            }
            ulong? handle = AsU64(request.Get("handle"));
            IHalf half;
            if (handle == null || !open.TryGetValue(handle.Value, out half))
            {
                Testee.BadRequest(j, "no session " + handle);
                return;
            }
            // The reply is written to a writer of its own first, so that a half failing halfway
            // through its report leaves no half-written member behind.
            JsonWriter ok = new JsonWriter();
            try
            {
                switch (op)
                {
                    case "close":
                        open.Remove(handle.Value);
                        ok.BeginObject();
                        ok.EndObject();
                        break;
                    case "advance":
                        {
                            JsonValue ops = request.Get("ops");
                            half.Advance(AsU64(request.Get("tick")) ?? 0, ops != null && ops.Kind == JsonKind.Array ? ops.Items : new List<JsonValue>());
                            ok.BeginObject();
                            ok.EndObject();
                            break;
                        }
                    case "deliver":
                        {
                            JsonValue fr = request.Get("frame");
                            JsonValue h = request.Get("hex");
                            byte[] bytes = Json.FromHex(h != null && h.Kind == JsonKind.String ? h.Text : "");
                            if (bytes == null)
                            {
                                Testee.BadRequest(j, "`hex` is not a hex string");
                                return;
                            }
                            ok.BeginObject();
                            ok.Name("report");
                            half.Deliver(fr != null && fr.Kind == JsonKind.String ? fr.Text : "", bytes, ok);
                            ok.EndObject();
                            break;
                        }
                    case "take":
                        ok.BeginObject();
                        ok.Name("frames");
                        ok.BeginArray();
                        foreach (Transmit t in half.Take())
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
                    case "state_hash":
                        {
                            uint? hash = half.StateHash();
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
    }
}
