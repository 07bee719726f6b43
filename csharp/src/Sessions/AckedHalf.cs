// The two session halves of acked snapshots (`docs/spec/acked.md`) over any IAckedSchema, as the
// Rust codec's `session::AckedClient` and `session::AckedServer` and the TypeScript and C++
// runtimes' halves: AckedClientHalf, the facade a Unity MonoBehaviour or a Godot node drives, and
// AckedServerHalf, which a game's IAckedPresenter feeds. The binding `ackwire gen --lang cs` writes
// for a `state` gives the schema (the reference protocol's `Reference`, kind 6, and
// `PackedReference`, kind 12); what each client sees of the world (tiers, refresh, a client's own
// entities) is the presenter's, the game's own code.
//
// Sans-IO: the game owns the socket and the clock; poll PollTransmit after each call.

using System.Collections.Generic;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>
    /// The client's half of acked snapshots: an AckedDecoder and the kind 7 AckWriter. A frame
    /// is the schema's (its FrameName), reported as its Delivery; a tick takes the player's
    /// input (or none) and sends one ack (the schema's AckName) acknowledging the newest frame
    /// applied, with the inputs last_seq does not cover yet, KEYFRAME_REQUEST set after a failed
    /// check until a keyframe applies. A peer's bytes never throw: the Delivery says what
    /// became of them.
    /// </summary>
    public sealed class AckedClientHalf<R, C, E, I> : ISessionHalf<I, Delivery<E>>
        where R : class
    {
        /// <summary>The decoder, for its lower-level methods (its counters, its held states).</summary>
        public readonly AckedDecoder<R, C, E, I> Decoder;

        readonly IAckedSchema<R, C, E, I> schema;
        readonly AckWriter<I> writer;
        readonly Outbox outbox = new Outbox();
        readonly bool inputIsValue = default(I) != null;

        /// <summary>A fresh client of <paramref name="schema"/>'s frames; the writer repeats at most <paramref name="keep"/> inputs (1 to 255) until covered.</summary>
        public AckedClientHalf(IAckedSchema<R, C, E, I> schema, ulong keep = 16)
        {
            this.schema = schema;
            Decoder = new AckedDecoder<R, C, E, I>(schema);
            writer = new AckWriter<I>(keep);
        }

        /// <summary>The server's frame arrives; a name other than the schema's frames' is a SessionError.</summary>
        public Delivery<E> HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.FrameName);
            // The writer stops repeating what the frame's last_seq covers at the next tick.
            return Decoder.Deliver(bytes);
        }

        /// <summary>A client tick: queues one ack frame, with <paramref name="input"/> (null for none) added to those repeated.</summary>
        public void HandleTick(Now now, I input)
        {
            writer.Confirm(Decoder.LastSeq);
            if (inputIsValue || input != null)
            {
                writer.Push(input);
            }
            AckContent<I> ack = writer.Frame(Decoder.AckTick, Decoder.KeyframeWanted);
            byte[] bytes;
            try
            {
                bytes = schema.EncodeAck(ack);
            }
            catch (EncodeError e)
            {
                throw new SessionError(SessionError.Encode, e.Message, e);
            }
            outbox.Push(new Transmit(schema.AckName, bytes, false));
        }

        /// <summary>The next frame to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return outbox.Poll();
        }

        /// <summary>The FNV-1a 32 of the shown state (the check's value: CHECK-2, CHECK-7).</summary>
        public uint StateHash()
        {
            return Decoder.StateHash();
        }

        /// <summary>The tick of the last frame shown, if any.</summary>
        public uint? ShownTick
        {
            get { return Decoder.ShownTick; }
        }

        /// <summary>How many entities are shown.</summary>
        public int ShownCount
        {
            get { return Decoder.State.Count; }
        }

        /// <summary>The shown record of <paramref name="eid"/>, or null. It is the decoder's, shared with the states it holds: read it, never edit it.</summary>
        public R Shown(int eid)
        {
            return Decoder.State.Get(eid);
        }

        /// <summary>Every shown entity, ascending by id, for drawing: its id and its record (read-only, as <see cref="Shown(int)"/>'s); no list is made.</summary>
        public IEnumerable<KeyValuePair<int, R>> AllShown
        {
            get
            {
                LiveState<R> live = Decoder.State;
                int span = live.Span;
                for (int eid = 0; eid < span; eid++)
                {
                    R r = live.Get(eid);
                    if (r != null)
                    {
                        yield return new KeyValuePair<int, R>(eid, r);
                    }
                }
            }
        }
    }

    /// <summary>
    /// What computes each client's S_N from the game's world of type <typeparamref name="W"/>
    /// (ACK-17: for each client, the state an ordered client would hold after frame N, as the
    /// ordered encoder computes it): the game's policy of who sees what, at which tier, how
    /// often.
    /// </summary>
    public interface IAckedPresenter<W, R>
    {
        /// <summary>S_N for tick <paramref name="tick"/> of <paramref name="world"/>: every entity the client holds, ascending by id.</summary>
        ServerEntry<R>[] Present(uint tick, W world);
    }

    /// <summary>What the acked server's world is on a tick.</summary>
    public sealed class AckedTick<W, E>
    {
        /// <summary>The world.</summary>
        public W World;
        /// <summary>The tick's new events.</summary>
        public IList<E> Events;
    }

    /// <summary>What an ack did to the acked server.</summary>
    public sealed class AckedAckReport
    {
        /// <summary>The encoder's verdict.</summary>
        public AckVerdict Verdict;
        /// <summary>The acknowledged base now.</summary>
        public uint? Base;
        /// <summary>The newest input sequence received.</summary>
        public uint LastSeq;
        /// <summary>A copy of the encoder's counters.</summary>
        public EncoderCounters Counters;
    }

    /// <summary>
    /// The server's half of acked snapshots: an IAckedPresenter and an acked encoder over an
    /// input sink. A tick takes the world and the tick's events and queues one frame (the
    /// schema's FrameName; reliable over RELIABLE_ABOVE bytes); a frame is the client's ack (the
    /// schema's AckName), judged against the tick of <c>now</c>.
    /// </summary>
    public sealed class AckedServerHalf<W, R, C, E, I> : ISessionHalf<AckedTick<W, E>, AckedAckReport>
        where R : class
    {
        /// <summary>The client's view.</summary>
        public readonly IAckedPresenter<W, R> Presenter;

        /// <summary>The encoder, for its lower-level methods.</summary>
        public readonly AckedEncoder<R, C, E, I> Encoder;

        readonly IAckedSchema<R, C, E, I> schema;
        readonly Outbox outbox = new Outbox();
        static readonly E[] NoEvents = new E[0];

        /// <summary>The half over <paramref name="presenter"/>, its encoder's frames written by <paramref name="schema"/>, its inputs going to <paramref name="inputs"/>.</summary>
        public AckedServerHalf(IAckedSchema<R, C, E, I> schema, IAckedPresenter<W, R> presenter, IInputSink<I> inputs)
        {
            this.schema = schema;
            Presenter = presenter;
            Encoder = new AckedEncoder<R, C, E, I>(schema, inputs);
        }

        /// <summary>The client's ack frame arrives; an undecodable one is a SessionError of kind <c>decode</c>.</summary>
        public AckedAckReport HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.AckName);
            AckVerdict verdict;
            try
            {
                verdict = Encoder.Receive(now.Tick, bytes);
            }
            catch (DecodeError e)
            {
                throw new SessionError(SessionError.Decode, e.Message, e);
            }
            return new AckedAckReport
            {
                Verdict = verdict,
                Base = Encoder.Acked,
                LastSeq = Encoder.LastSeq,
                Counters = Encoder.Counters.Copy(),
            };
        }

        /// <summary>Tick <c>now.Tick</c> passes: presents the world and queues its frame.</summary>
        public void HandleTick(Now now, AckedTick<W, E> input)
        {
            if (input == null || input.World == null)
            {
                throw new SessionError(SessionError.NoWorld, "the acked server half was ticked without a world");
            }
            uint tick = Session.Tick32(now.Tick);
            ServerEntry<R>[] state = Presenter.Present(tick, input.World);
            Outgoing<C, E> sent;
            try
            {
                sent = Encoder.Encode(tick, state, input.Events ?? NoEvents);
            }
            catch (EncodeError e)
            {
                throw new SessionError(SessionError.Encode, e.Message, e);
            }
            outbox.Push(new Transmit(schema.FrameName, sent.Bytes, sent.Reliable));
        }

        /// <summary>The next frame to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return outbox.Poll();
        }
    }

    /// <summary>
    /// The acked halves made over a schema, their types inferred from it:
    /// <c>AckedHalves.Client(Reference.Schema)</c> rather than
    /// <c>new AckedClientHalf&lt;EntityState, StagedChange, Event, Input&gt;(Reference.Schema)</c>.
    /// </summary>
    public static class AckedHalves
    {
        /// <summary>A fresh client of <paramref name="schema"/>'s frames; its writer repeats at most <paramref name="keep"/> inputs (1 to 255) until covered.</summary>
        public static AckedClientHalf<R, C, E, I> Client<R, C, E, I>(IAckedSchema<R, C, E, I> schema, ulong keep = 16)
            where R : class
        {
            return new AckedClientHalf<R, C, E, I>(schema, keep);
        }

        /// <summary>A server half of <paramref name="schema"/>'s frames over <paramref name="presenter"/>, its inputs going to <paramref name="inputs"/>.</summary>
        public static AckedServerHalf<W, R, C, E, I> Server<W, R, C, E, I>(IAckedSchema<R, C, E, I> schema,
            IAckedPresenter<W, R> presenter, IInputSink<I> inputs)
            where R : class
        {
            return new AckedServerHalf<W, R, C, E, I>(schema, presenter, inputs);
        }
    }
}
