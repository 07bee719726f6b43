// The `acked` session pair (`docs/spec/acked.md`) for the testee protocol, ported from
// conformance/src/sessions/acked.rs (and the TS and C++ testees' adapters): `acked_server` is the
// runtime's AckedServerHalf, its encoder fed by a world and the reference Presenter
// (gen/reference/Presenter.cs, the game's policy), over the input schedule; `acked_client` is the
// runtime's AckedClientHalf, the AckedDecoder with its kind 7 writer. Both run over the binding
// `ackwire gen --lang cs` writes for `state Reference` (gen/Reference.cs): this file only
// translates the protocol's JSON (params, world ops, reports) into the halves' calls.
//
// Parameters (an object; every key optional, the same object opens both halves): `own` (eids,
// default [1]), `near_enter` and `near_leave` (metres, 12 and 14), `far_every` (6), `max_late`
// and `max_early` (4 and 64: the server's input window), `input_lead` (2: the client aims each
// tick's input this far ahead), `keep_inputs` (16), `corrupt_at` (a tick: at its advance the
// client flips bits 0x55 of the `hp` of every record it holds and shows, a memory corruption the
// next check must catch, after which it asks for a keyframe).
//
// `acked_packed_server` and `acked_packed_client` (issue 19) are the same halves over the
// bit-packed schema (PackedReference): kind 12 frames named `acked_packed`, the same acks. The
// world op `{"orient": {"eid", "x", "y", "z", "w"}}` sets an entity's orientation (a quaternion of
// any norm) after the tick's other ops; the `acked_packed` vectors use it, so the `acked` ones
// stay as they were.
//
// `acked_coded_server` and `acked_coded_client` (issue 39) are the same halves over the coded
// schema (CodedReference, docs/spec/coded.md): kind 13 frames named `acked_coded`, the same acks,
// each frame written and read against the states of its base and older snapshot.
//
// Every frame a client is given is also read by the generated codec's reader (Acked.Decode,
// AckedPacked.Decode), and the binding's reader must agree with it: the same frame, or the same
// error at the same offset and path (SchemaAgrees); a disagreement exits the process.

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Reference;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using ClientHalf = Ackwire.Runtime.Sessions.AckedClientHalf<Ackwire.Protocol.EntityState, Ackwire.Protocol.StagedChange,
    Ackwire.Protocol.Event, Ackwire.Protocol.Input>;
using Frame = Ackwire.Runtime.Sessions.AckedFrame<Ackwire.Protocol.StagedChange, Ackwire.Protocol.Event>;
using ServerHalf = Ackwire.Runtime.Sessions.AckedServerHalf<System.Collections.Generic.IDictionary<int, Ackwire.Reference.WorldEntity>,
    Ackwire.Protocol.EntityState, Ackwire.Protocol.StagedChange, Ackwire.Protocol.Event, Ackwire.Protocol.Input>;
using World = System.Collections.Generic.IDictionary<int, Ackwire.Reference.WorldEntity>;

/// <summary>The acked halves: <c>acked_server</c> and <c>acked_client</c> (kind 6), <c>acked_packed_server</c> and <c>acked_packed_client</c> (kind 12), <c>acked_coded_server</c> and <c>acked_coded_client</c> (kind 13).</summary>
static class AckedAdapters
{
    /// <summary>Adds the acked halves to <paramref name="r"/>.</summary>
    public static void Register(Registry r)
    {
        r.Add("acked_server", p => new AckedServer(new AckedParams(p), Reference.Schema));
        r.Add("acked_client", p => new AckedClient(new AckedParams(p), Reference.Schema));
        // Issue 19: the same halves over the bit-packed schema, kind 12 frames.
        r.Add("acked_packed_server", p => new AckedServer(new AckedParams(p), PackedReference.Schema));
        r.Add("acked_packed_client", p => new AckedClient(new AckedParams(p), PackedReference.Schema));
        // Issue 39: the same halves over the coded schema, kind 13 frames.
        r.Add("acked_coded_server", p => new AckedServer(new AckedParams(p), CodedReference.Schema));
        r.Add("acked_coded_client", p => new AckedClient(new AckedParams(p), CodedReference.Schema));
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
    sealed class AckedServer : Adapter<ServerHalf, AckedTick<World, Event>, AckedAckReport>
    {
        readonly Dictionary<int, WorldEntity> world = new Dictionary<int, WorldEntity>();
        readonly Dictionary<int, ulong> lives = new Dictionary<int, ulong>();
        readonly ScheduledInputs<Input> inputs;
        ulong tick;

        public AckedServer(AckedParams p, ReferenceSchema schema)
            : this(p, new ScheduledInputs<Input>(new InputWindow(p.MaxLate, p.MaxEarly)), schema)
        {
        }

        AckedServer(AckedParams p, ScheduledInputs<Input> inputs, ReferenceSchema schema)
            : base(AckedHalves.Server(schema, new Presenter(new ViewConfig { Own = p.Own, Tier = p.Tier, FarEvery = p.FarEvery }), inputs))
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
                half.HandleTick(new Now(t, nowMs), new AckedTick<World, Event> { World = world, Events = events });
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
    /// The testee's check of the binding's reader against the generated codec's on every frame
    /// a client is given: the same frame (its changes as the codec's, through the schema's
    /// ToChange), or the same error (kind, offset and path); a frame it reads goes back to its
    /// own bytes; and a kind 12 frame goes through kind 6 to the same frame (kind 12 and kind 6
    /// carry the same information). A disagreement exits the process with both on standard
    /// error (the runner reports a crash), as the testee's codec checks do.
    /// </summary>
    public static void SchemaAgrees(ReferenceSchema schema, byte[] bytes)
    {
        if (schema == CodedReference.Schema)
        {
            // A coded frame reads against the states its client holds, which only the client's
            // decoder has; the frame vectors hold its reader to Rust's instead.
            return;
        }
        bool packed = schema == PackedReference.Schema;
        Frame f = new Frame();
        string read;
        try
        {
            schema.DecodeFrameInto(bytes, f);
            read = packed ? Canon(PackedReference.ToFrame(f)) : Canon(Reference.ToFrame(f));
        }
        catch (DecodeError e)
        {
            f = null;
            read = ErrorText(e);
        }
        string generated = packed ? ViaPacked(bytes) : ViaAcked(bytes);
        string why = null;
        if (read != generated)
        {
            why = "the generated reader says\n" + generated + "\nthe binding's\n" + read;
        }
        else if (f != null)
        {
            try
            {
                byte[] again = schema.EncodeFrame(f);
                if (Json.ToHex(again) != Json.ToHex(bytes))
                {
                    why = "the frame read writes again as " + Json.ToHex(again);
                }
                else if (packed)
                {
                    Frame g = new Frame();
                    byte[] six = Reference.Schema.EncodeFrame(f);
                    Reference.Schema.DecodeFrameInto(six, g);
                    if (Canon(Reference.ToFrame(g)) != Canon(Reference.ToFrame(f)))
                    {
                        why = "through kind 6 " + Json.ToHex(six) + " it reads as another frame";
                    }
                }
            }
            catch (EncodeError e)
            {
                why = "writing the frame read again is refused: " + e.Message;
            }
            catch (DecodeError e)
            {
                why = "kind 6 refused its own frame: " + e.Message;
            }
        }
        if (why != null)
        {
            Console.Error.WriteLine("testee: the " + schema.FrameName + " binding disagrees on " + Json.ToHex(bytes) + ": " + why);
            Environment.Exit(134);
        }
    }

    static string ErrorText(DecodeError e)
    {
        return "error " + Errors.KindName(e.Kind) + " at " + e.Offset + " in " + e.Path;
    }

    /// <summary>What the generated Acked.Decode reads, then ACK-4's keyframe rule.</summary>
    static string ViaAcked(byte[] bytes)
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
        if ((f.Flags & AckedFlags.KEYFRAME) != 0 && f.BaseTick != 0)
        {
            return "error invalid_condition at 5 in base_tick";
        }
        return Canon(f);
    }

    /// <summary>
    /// What the generated AckedPacked.Decode reads, then the keyframe rule, then the first code
    /// with no kind 6 value (over_width at the packed body's first byte, in the Rust codec's
    /// order within a change: eid, age, the step's yaw, dx, dy, dz).
    /// </summary>
    static string ViaPacked(byte[] bytes)
    {
        AckedPacked f;
        try
        {
            f = AckedPacked.Decode(bytes);
        }
        catch (DecodeError e)
        {
            return ErrorText(e);
        }
        if ((f.Flags & AckedFlags.KEYFRAME) != 0 && f.BaseTick != 0)
        {
            return "error invalid_condition at 5 in base_tick";
        }
        long body = 17 + (f.Check.HasValue ? 4 : 0) + 2L * f.Removed.Length;
        for (int i = 0; i < f.Body.Changes.Length; i++)
        {
            PackedChange c = f.Body.Changes[i];
            string past = c.Eid > 65535 ? "eid"
                : c.Age.HasValue && c.Age.Value > 255 ? "age"
                : c.PoseStep == null ? null
                : c.PoseStep.Dx < short.MinValue || c.PoseStep.Dx > short.MaxValue ? "pose_step.dx"
                : c.PoseStep.Dy < short.MinValue || c.PoseStep.Dy > short.MaxValue ? "pose_step.dy"
                : c.PoseStep.Dz < short.MinValue || c.PoseStep.Dz > short.MaxValue ? "pose_step.dz"
                : c.PoseStep.Yaw > 255 ? "pose_step.yaw" : null;
            if (past != null)
            {
                return "error over_width at " + body + " in body.changes[" + i + "]." + past;
            }
        }
        return Canon(f);
    }

    static string Canon(Acked f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        j.BeginArray();
        foreach (Change c in f.Changes)
        {
            // The JSON form rounds no float, but say the yaw's exact double too.
            j.String(c.PoseFull != null ? c.PoseFull.Yaw.ToString("R") : c.PoseStep != null ? c.PoseStep.Yaw.ToString("R") : "");
        }
        j.EndArray();
        return j.ToString();
    }

    static string Canon(AckedPacked f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        return j.ToString();
    }

    /// <summary>The client half: the runtime's (the AckedDecoder and the kind 7 writer), a scripted player.</summary>
    sealed class AckedClient : Adapter<ClientHalf, Input, Delivery<Event>>
    {
        readonly uint lead;
        readonly ulong? corruptAt;
        readonly ReferenceSchema schema;

        public AckedClient(AckedParams p, ReferenceSchema schema)
            : base(AckedHalves.Client(schema, p.Keep))
        {
            this.schema = schema;
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
            if (frame != schema.FrameName)
            {
                throw new SessionError(SessionError.UnexpectedFrame, "the acked client takes `" + schema.FrameName + "` frames, not `" + frame + "`");
            }
            SchemaAgrees(schema, bytes);
            // The client does not count ticks; its decoder reads none.
            Delivery<Event> d = half.HandleFrame(new Now(0, nowMs), frame, bytes);
            DeliveryJson.Write(j, d, (e, w) => e.ToJson(w));
        }

        public override uint? StateHash()
        {
            return half.StateHash();
        }
    }
}
