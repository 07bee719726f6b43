// The `acked` session pair (`docs/spec/acked.md`) for the testee protocol, ported from
// conformance/src/sessions/acked.rs (and the TS and C++ testees' adapters): `acked_server` is the
// runtime's acked encoder fed by a world and the reference Presenter, over the input schedule;
// `acked_client` is the AckedDecoder with its kind 7 writer. This file only translates the
// protocol's JSON (params, world ops, reports) into the halves' calls; the machines are the
// runtime's (gen/Runtime/Sessions/), bound to the reference protocol by gen/reference/Acked.cs.
//
// Parameters (an object; every key optional, the same object opens both halves): `own` (eids,
// default [1]), `near_enter` and `near_leave` (metres, 12 and 14), `far_every` (6), `max_late`
// and `max_early` (4 and 64: the server's input window), `input_lead` (2: the client aims each
// tick's input this far ahead), `keep_inputs` (16), `corrupt_at` (a tick: at its advance the
// client flips bits 0x55 of the `hp` of every record it holds and shows, a memory corruption the
// next check must catch, after which it asks for a keyframe).
//
// `acked_packed_server` and `acked_packed_client` (issue 19) are the same halves over the
// bit-packed schema (gen/reference/AckedPacked.cs): kind 12 frames named `acked_packed`, the same
// acks. The world op `{"orient": {"eid", "x", "y", "z", "w"}}` sets an entity's orientation (a
// quaternion of any norm) after the tick's other ops; the `acked_packed` vectors use it, so the
// `acked` ones stay as they were.

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Reference;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>The acked halves: <c>acked_server</c> and <c>acked_client</c> (kind 6), <c>acked_packed_server</c> and <c>acked_packed_client</c> (kind 12).</summary>
static class AckedHalves
{
    /// <summary>Adds the acked halves to <paramref name="r"/>.</summary>
    public static void Register(Registry r)
    {
        r.Add("acked_server", p => new AckedServer(new AckedParams(p), AckedReference.Schema, AckedReference.FrameName));
        r.Add("acked_client", p => new AckedClient(new AckedParams(p), AckedReference.Schema, AckedReference.FrameName));
        // Issue 19: the same halves over the bit-packed schema, kind 12 frames.
        r.Add("acked_packed_server", p => new AckedServer(new AckedParams(p), AckedPackedReference.Schema, AckedPackedReference.FrameName));
        r.Add("acked_packed_client", p => new AckedClient(new AckedParams(p), AckedPackedReference.Schema, AckedPackedReference.FrameName));
    }

    const string TickRange = "ticks are u32 on the wire";

    /// <summary>The params of both halves, as conformance/src/sessions/acked.rs reads them.</summary>
    sealed class AckedParams
    {
        public readonly ushort[] Own;
        public readonly TierBoundary Tier;
        public readonly uint FarEvery;
        public readonly ulong MaxLate;
        public readonly ulong MaxEarly;
        public readonly uint Lead;
        public readonly ulong Keep;
        public readonly ulong? CorruptAt;

        public AckedParams(JsonValue v)
        {
            JsonValue o = Sessions.Params(v, "acked");
            Own = new ushort[] { 1 };
            JsonValue own = o.Get("own");
            if (own != null)
            {
                if (own.Kind != JsonKind.Array)
                {
                    throw new ArgumentException("`own` must be an array of eids");
                }
                Own = new ushort[own.Items.Count];
                for (int i = 0; i < Own.Length; i++)
                {
                    ulong? n = Sessions.AsU64(own.Items[i]);
                    if (n == null || n.Value > 65535)
                    {
                        throw new ArgumentException("`own` must hold u16 eids");
                    }
                    Own[i] = (ushort)n.Value;
                }
            }
            float enter = (float)(Sessions.AsF64(o.Get("near_enter")) ?? 12);
            float leave = (float)(Sessions.AsF64(o.Get("near_leave")) ?? 14);
            if (float.IsNaN(enter) || float.IsNaN(leave) || leave < enter)
            {
                throw new ArgumentException("near_leave must not be smaller than near_enter");
            }
            Tier = new TierBoundary(enter, leave);
            FarEvery = Math.Max(1u, U32(Sessions.AsU64(o.Get("far_every")) ?? 6, 6));
            MaxLate = Sessions.AsU64(o.Get("max_late")) ?? 4;
            MaxEarly = Sessions.AsU64(o.Get("max_early")) ?? 64;
            Lead = U32(Sessions.AsU64(o.Get("input_lead")) ?? 2, 2);
            Keep = Sessions.AsU64(o.Get("keep_inputs")) ?? 16;
            CorruptAt = Sessions.AsU64(o.Get("corrupt_at"));
        }

        static uint U32(ulong n, uint d)
        {
            return n <= uint.MaxValue ? (uint)n : d;
        }
    }

    enum OpKind
    {
        Spawn,
        Move,
        Set,
        Despawn,
        Event,
    }

    /// <summary>One world operation of <c>advance</c>.</summary>
    sealed class Op
    {
        public OpKind Kind;
        public int Eid;
        public float X, Y, Z, Yaw;
        public byte Hp, Armor, Seat;
        public ushort Vehicle;
        public Event Event;
    }

    /// <summary>
    /// The <c>orient</c> ops of a tick (<c>{"orient": {"eid", "x", "y", "z", "w"}}</c>: the
    /// entity's orientation, a quaternion of any norm, components read as f32), applied after
    /// the tick's other ops; an entity keeps its orientation for its life (issue 19). An op for
    /// an id the world does not hold is an error, as in conformance/src/sessions/acked.rs.
    /// </summary>
    static void Turn(Dictionary<int, WorldEntity> world, List<JsonValue> ops)
    {
        foreach (JsonValue v in ops)
        {
            if (!IsOrient(v))
            {
                continue;
            }
            JsonValue body = v.Get("orient");
            JsonValue b = body.Kind == JsonKind.Object ? body : null;
            ulong? e = Sessions.AsU64(b == null ? null : b.Get("eid"));
            if (e == null || e.Value > 65535)
            {
                throw new ArgumentException("`orient` needs a u16 `eid`");
            }
            Func<string, float> f = k => (float)(Sessions.AsF64(b.Get(k)) ?? 0);
            WorldEntity w;
            if (!world.TryGetValue((int)e.Value, out w))
            {
                throw new ArgumentException("`orient` of entity " + e.Value + ", which the world does not hold");
            }
            w.Orient = new Xyzw(f("x"), f("y"), f("z"), f("w"));
        }
    }

    /// <summary>Whether <paramref name="v"/> is an <c>orient</c> op (Turn's, not OpFromJson's).</summary>
    static bool IsOrient(JsonValue v)
    {
        return v != null && v.Kind == JsonKind.Object && v.Get("orient") != null;
    }

    static Op OpFromJson(JsonValue v)
    {
        if (v == null || v.Kind != JsonKind.Object || v.Members.Count != 1)
        {
            throw new ArgumentException("a world op is an object with one key (spawn, move, set, despawn, event)");
        }
        string kind = v.Members[0].Key;
        JsonValue body = v.Members[0].Value;
        JsonValue b = body != null && body.Kind == JsonKind.Object ? body : null;
        Func<string, JsonValue> get = k => b == null ? null : b.Get(k);
        Func<int> eid = () =>
        {
            ulong? e = Sessions.AsU64(get("eid"));
            if (e == null || e.Value > 65535)
            {
                throw new ArgumentException("`" + kind + "` needs a u16 `eid`");
            }
            return (int)e.Value;
        };
        // f32, as the Rust world holds positions and headings.
        Func<string, float> f = k => (float)(Sessions.AsF64(get(k)) ?? 0);
        Func<string, byte> byte_ = k => (byte)Math.Min(255UL, Sessions.AsU64(get(k)) ?? 0);
        switch (kind)
        {
            case "spawn":
                return new Op { Kind = OpKind.Spawn, Eid = eid(), X = f("x"), Y = f("y"), Z = f("z"), Yaw = f("yaw"), Hp = byte_("hp") };
            case "move":
                return new Op { Kind = OpKind.Move, Eid = eid(), X = f("x"), Y = f("y"), Z = f("z"), Yaw = f("yaw") };
            case "set":
                return new Op
                {
                    Kind = OpKind.Set,
                    Eid = eid(),
                    Hp = byte_("hp"),
                    Armor = byte_("armor"),
                    Vehicle = (ushort)Math.Min(65535UL, Sessions.AsU64(get("vehicle")) ?? 0),
                    Seat = byte_("seat"),
                };
            case "despawn":
                return new Op { Kind = OpKind.Despawn, Eid = eid() };
            case "event":
                try
                {
                    return new Op { Kind = OpKind.Event, Event = Event.FromJson(body) };
                }
                catch (JsonError e)
                {
                    throw new ArgumentException("a bad event: " + e.Message);
                }
            default:
                throw new ArgumentException("unknown world op `" + kind + "`");
        }
    }

    /// <summary>The server half: the world, the client's view of it and its acked encoder.</summary>
    sealed class AckedServer : Adapter<AckedServerHalf, AckedTick, AckedAckReport>
    {
        readonly Dictionary<int, WorldEntity> world = new Dictionary<int, WorldEntity>();
        readonly Dictionary<int, ulong> lives = new Dictionary<int, ulong>();
        readonly ScheduledInputs<Input> inputs;
        ulong tick;

        public AckedServer(AckedParams p, IAckedSchema<EntityState, Change, Event, Input> schema, string frameName)
            : this(p, new ScheduledInputs<Input>(new InputWindow(p.MaxLate, p.MaxEarly)), schema, frameName)
        {
        }

        AckedServer(AckedParams p, ScheduledInputs<Input> inputs, IAckedSchema<EntityState, Change, Event, Input> schema, string frameName)
            : base(new AckedServerHalf(new Presenter(new ViewConfig { Own = p.Own, Tier = p.Tier, FarEvery = p.FarEvery }), inputs,
                schema, frameName))
        {
            this.inputs = inputs;
        }

        /// <summary>The harness's <c>apply_ops</c>: the world after the ops, and the tick's events.</summary>
        List<Event> Apply(List<Op> ops)
        {
            List<Event> events = new List<Event>();
            foreach (Op op in ops)
            {
                WorldEntity w;
                switch (op.Kind)
                {
                    case OpKind.Spawn:
                        {
                            ulong life;
                            lives.TryGetValue(op.Eid, out life);
                            life++;
                            lives[op.Eid] = life;
                            world[op.Eid] = new WorldEntity { Life = life, X = op.X, Y = op.Y, Z = op.Z, Yaw = op.Yaw, Hp = op.Hp };
                            break;
                        }
                    case OpKind.Move:
                        if (world.TryGetValue(op.Eid, out w))
                        {
                            w.X = op.X;
                            w.Y = op.Y;
                            w.Z = op.Z;
                            w.Yaw = op.Yaw;
                        }
                        break;
                    case OpKind.Set:
                        if (world.TryGetValue(op.Eid, out w))
                        {
                            w.Hp = op.Hp;
                            w.Armor = op.Armor;
                            w.Vehicle = op.Vehicle;
                            w.Seat = op.Seat;
                        }
                        break;
                    case OpKind.Despawn:
                        world.Remove(op.Eid);
                        break;
                    case OpKind.Event:
                        events.Add(op.Event);
                        break;
                }
            }
            return events;
        }

        public override void Advance(ulong t, ulong nowMs, List<JsonValue> ops)
        {
            List<Op> parsed = new List<Op>();
            foreach (JsonValue v in ops)
            {
                if (!IsOrient(v))
                {
                    parsed.Add(OpFromJson(v));
                }
            }
            if (t > uint.MaxValue)
            {
                throw new ArgumentException(TickRange);
            }
            tick = t;
            List<Event> events = Apply(parsed);
            Turn(world, ops);
            // SRV-12: inputs execute on the tick they name; the reference world does not act on
            // them, it only consumes them so the buffer reports what is still ahead.
            Input due;
            while (inputs.ExecuteDue(t, out due))
            {
                // Every due input is consumed by the first call.
            }
            try
            {
                half.HandleTick(new Now(t, nowMs), new AckedTick { World = world, Events = events });
            }
            catch (SessionError e)
            {
                throw new ArgumentException("encoding tick " + t + ": " + e.Message);
            }
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter j)
        {
            if (frame != "ack")
            {
                throw new SessionError(SessionError.UnexpectedFrame, "acked_server takes `ack` frames, not `" + frame + "`");
            }
            AckedAckReport r;
            try
            {
                r = half.HandleFrame(new Now(tick, nowMs), frame, bytes);
            }
            catch (SessionError e)
            {
                DecodeError d = e.InnerException as DecodeError;
                if (e.Kind == SessionError.Decode && d != null)
                {
                    j.BeginObject();
                    j.Name("error");
                    j.String(Errors.KindName(d.Kind));
                    j.EndObject();
                    return;
                }
                throw;
            }
            j.BeginObject();
            j.Name("ack");
            j.String(VerdictName(r.Verdict));
            j.Name("base");
            if (r.Base.HasValue)
            {
                j.Uint(r.Base.Value);
            }
            else
            {
                j.Null();
            }
            j.Name("last_seq");
            j.Uint(r.LastSeq);
            j.Name("keyframes");
            j.Uint(r.Counters.Keyframes);
            j.Name("events_expired");
            j.Uint(r.Counters.EventsExpired);
            j.EndObject();
        }

        static string VerdictName(AckVerdict v)
        {
            switch (v)
            {
                case AckVerdict.Taken: return "taken";
                case AckVerdict.Old: return "old";
                case AckVerdict.Unknown: return "unknown";
                case AckVerdict.Nothing: return "nothing";
                default: return "keyframe_requested";
            }
        }
    }

    /// <summary>
    /// The testee's check of the reference schema's reader at once (FastFrame) against the
    /// generated Acked.Decode, on every frame delivered: the same frame, or the same error.
    /// A disagreement exits the process with both on standard error (the runner reports a
    /// crash), as the testee's codec checks do.
    /// </summary>
    public static void ReadersAgree(byte[] bytes)
    {
        string a = ViaSchema(bytes);
        string b = ViaGenerated(bytes);
        if (a != b)
        {
            Console.Error.WriteLine("testee: the acked schema's reader disagrees with Acked.Decode on " + Json.ToHex(bytes)
                + "\nat once   " + a + "\ngenerated " + b);
            Environment.Exit(134);
        }
    }

    /// <summary>
    /// The testee's check of the packed schema's conversion on every kind 12 frame delivered:
    /// a frame it reads goes back, through kind 6's frame, to the same bytes (kind 12 and kind
    /// 6 carry the same information, packed.rs's property tests), and the kind 6 frame's bytes
    /// read back as the same frame. A disagreement exits the process with both on standard
    /// error (the runner reports a crash).
    /// </summary>
    public static void PackedRoundTrips(byte[] bytes)
    {
        AckedFrame<Change, Event> f = new AckedFrame<Change, Event>();
        try
        {
            AckedPackedReference.Schema.DecodeFrameInto(bytes, f);
        }
        catch (DecodeError)
        {
            return;
        }
        string why = null;
        try
        {
            byte[] again = AckedPackedReference.Schema.EncodeFrame(f);
            if (Json.ToHex(again) != Json.ToHex(bytes))
            {
                why = "kind 12 again is " + Json.ToHex(again);
            }
            byte[] six = AckedReference.Schema.EncodeFrame(f);
            AckedFrame<Change, Event> g = new AckedFrame<Change, Event>();
            AckedReference.Schema.DecodeFrameInto(six, g);
            string a = Canon(f.Tick, f.BaseTick, f.LastSeq, f.InputBuffer, f.Keyframe, f.Check, f.Removed, f.Changes, f.FirstSerial, f.Events);
            string b = Canon(g.Tick, g.BaseTick, g.LastSeq, g.InputBuffer, g.Keyframe, g.Check, g.Removed, g.Changes, g.FirstSerial, g.Events);
            if (why == null && a != b)
            {
                why = "through kind 6 " + Json.ToHex(six) + "\nkind 12 " + a + "\nkind 6  " + b;
            }
        }
        catch (EncodeError e)
        {
            why = "re-encoding refused: " + e.Message;
        }
        catch (DecodeError e)
        {
            why = "kind 6 refused its own frame: " + e.Message;
        }
        if (why != null)
        {
            Console.Error.WriteLine("testee: the packed schema does not round-trip " + Json.ToHex(bytes) + ": " + why);
            Environment.Exit(134);
        }
    }

    static string ErrorText(DecodeError e)
    {
        return "error " + Errors.KindName(e.Kind) + " at " + e.Offset + " in " + e.Path;
    }

    static string ViaSchema(byte[] bytes)
    {
        AckedFrame<Change, Event> f = new AckedFrame<Change, Event>();
        try
        {
            AckedReference.Schema.DecodeFrameInto(bytes, f);
        }
        catch (DecodeError e)
        {
            return ErrorText(e);
        }
        return Canon(f.Tick, f.BaseTick, f.LastSeq, f.InputBuffer, f.Keyframe, f.Check, f.Removed, f.Changes, f.FirstSerial, f.Events);
    }

    static string ViaGenerated(byte[] bytes)
    {
        Acked f;
        try
        {
            f = Acked.Decode(bytes);
        }
        catch (DecodeError e)
        {
            return ErrorText(e);
        }
        bool keyframe = (f.Flags & AckedFlags.KEYFRAME) != 0;
        if (keyframe && f.BaseTick != 0)
        {
            return "error invalid_condition at 5 in base_tick";
        }
        return Canon(f.Tick, f.BaseTick, f.LastSeq, f.InputBuffer, keyframe, f.Check, f.Removed, f.Changes, f.FirstSerial ?? 0, f.Events);
    }

    static string Canon(uint tick, uint baseTick, uint lastSeq, byte inputBuffer, bool keyframe, uint? check,
        ushort[] removed, Change[] changes, uint firstSerial, Event[] events)
    {
        JsonWriter j = new JsonWriter();
        j.BeginArray();
        j.Uint(tick);
        j.Uint(baseTick);
        j.Uint(lastSeq);
        j.Uint(inputBuffer);
        j.Bool(keyframe);
        if (check.HasValue)
        {
            j.Uint(check.Value);
        }
        else
        {
            j.Null();
        }
        j.String(string.Join(" ", removed));
        j.BeginArray();
        foreach (Change c in changes)
        {
            c.ToJson(j);
            // The JSON form rounds no float, but say the yaw's exact double too.
            j.String(c.PoseFull != null ? c.PoseFull.Yaw.ToString("R") : c.PoseStep != null ? c.PoseStep.Yaw.ToString("R") : "");
        }
        j.EndArray();
        j.Uint(firstSerial);
        j.BeginArray();
        foreach (Event e in events)
        {
            e.ToJson(j);
        }
        j.EndArray();
        j.EndArray();
        return j.ToString();
    }

    /// <summary>The client half: the runtime's (the AckedDecoder and the kind 7 writer), a scripted player.</summary>
    sealed class AckedClient : Adapter<AckedClientHalf, Input, Delivery<Event>>
    {
        readonly uint lead;
        readonly ulong? corruptAt;
        readonly string frameName;

        public AckedClient(AckedParams p, IAckedSchema<EntityState, Change, Event, Input> schema, string frameName)
            : base(new AckedClientHalf(schema, frameName, p.Keep))
        {
            this.frameName = frameName;
            lead = p.Lead;
            corruptAt = p.CorruptAt;
        }

        public override void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            if (corruptAt.HasValue && corruptAt.Value == tick)
            {
                half.Decoder.Tamper((eid, r) => r.Hp ^= 0x55);
            }
            if (tick > uint.MaxValue)
            {
                throw new ArgumentException(TickRange);
            }
            Input input = new Input
            {
                Tick = (uint)Math.Min(uint.MaxValue, tick + lead),
                Buttons = tick % 10 == 0 ? Buttons.FIRE : 0,
                MoveX = 1,
                MoveY = 0,
                Yaw = (tick % 256) * (360.0 / 256),
            };
            half.HandleTick(new Now(tick, nowMs), input);
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter j)
        {
            if (frame != frameName)
            {
                throw new SessionError(SessionError.UnexpectedFrame, "the acked client takes `" + frameName + "` frames, not `" + frame + "`");
            }
            if (frameName == AckedReference.FrameName)
            {
                ReadersAgree(bytes);
            }
            else
            {
                PackedRoundTrips(bytes);
            }
            // The client does not count ticks; its decoder reads none.
            Delivery<Event> d = half.HandleFrame(new Now(0, nowMs), frame, bytes);
            j.BeginObject();
            switch (d.Kind)
            {
                case DeliveryKind.Shown:
                    {
                        FrameReport<Event> r = d.Report;
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
                            r.Events[i].ToJson(j);
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

        public override uint? StateHash()
        {
            return half.StateHash();
        }
    }
}
