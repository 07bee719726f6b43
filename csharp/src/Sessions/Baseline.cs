// NetBaseline snapshots (`docs/spec/baseline.md`), both halves, as the Rust codec's `baseline`
// module and the TypeScript and C++ ports: the server's SnapshotWriter over a NetBaseline and a
// Scene under a byte budget, and the client's SnapshotClient, which applies snapshots and
// acknowledges them. An IBaselineSchema binds them to a protocol's `snapshot` and `snapshot_ack`
// frames and its components.
//
// NB-7: a component goes in full when its encoded bits are not the confirmed ones; what changes is
// presence, never values, so each entry reads from its packet alone and a new client's first
// snapshot holds the whole world.
//
// Choices the specification makes, made as the Rust machines make them: an entity's component set
// only grows (a component is removed by replacing the entity); the client acknowledges a snapshot
// when it applies it and drops, unacknowledged, one not newer than the last applied; what a
// connection is owed is bounded (BaselineLimits), past which the writer reports the connection
// stalled instead of forgetting what it owes.
//
// Sans-IO: nothing here reads a clock or opens a socket.

using System;
using System.Collections.Generic;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>An entity: a slot (24 bits on the wire) and the occupant's generation (u8).</summary>
    public struct EntityId
    {
        /// <summary>The slot.</summary>
        public uint Slot;

        /// <summary>The occupant's generation.</summary>
        public byte Generation;

        /// <summary>The entity in <paramref name="slot"/> of <paramref name="generation"/>.</summary>
        public EntityId(uint slot, byte generation)
        {
            Slot = slot;
            Generation = generation;
        }

        /// <summary>slot * 256 + generation: ordered as (slot, generation).</summary>
        public ulong Key { get { return ((ulong)Slot << 8) | Generation; } }

        /// <summary>The entity of a <see cref="Key"/>.</summary>
        public static EntityId OfKey(ulong key)
        {
            return new EntityId(unchecked((uint)(key >> 8)), unchecked((byte)key));
        }
    }

    /// <summary>One entry of a snapshot body, its slot as the wire's gap.</summary>
    public sealed class WireEntry<C> where C : class
    {
        /// <summary>Slot minus the previous entry's slot minus one (the first entry: its slot).</summary>
        public uint Gap;

        /// <summary>The occupant's generation.</summary>
        public byte Generation;

        /// <summary>Its components by schema index, null where not carried.</summary>
        public C[] Components;
    }

    /// <summary>A snapshot as the schema's codec gives it.</summary>
    public sealed class SnapshotFrame<C> where C : class
    {
        /// <summary>The u16 sequence.</summary>
        public ushort Sequence;

        /// <summary>Lost entities, ascending by slot.</summary>
        public EntityId[] Lost;

        /// <summary>Entries, ascending by slot.</summary>
        public WireEntry<C>[] Entries;
    }

    /// <summary>What binds the baseline halves to a protocol: its frames, components and bit costs.</summary>
    public interface IBaselineSchema<C> where C : class
    {
        /// <summary>The snapshot frame's name in the spec (<c>snapshot</c>).</summary>
        string SnapshotFrame { get; }
        /// <summary>The acknowledgement's name (<c>snapshot_ack</c>).</summary>
        string AckFrame { get; }
        /// <summary>Component types, in schema order (the mask's bit order).</summary>
        int ComponentTypes { get; }
        /// <summary>ACK_WINDOW (NB-10): snapshots held unconfirmed at most, less one.</summary>
        int AckWindow { get; }
        /// <summary>Lost entities one snapshot names at most.</summary>
        int MaxLostPerSnapshot { get; }
        /// <summary>Bytes of a snapshot before its body.</summary>
        int HeaderBytes { get; }
        /// <summary>Body bits around the lists (the counts).</summary>
        int CountBits { get; }
        /// <summary>An entry's bits before its components, at their longest.</summary>
        int EntryHeadBits { get; }
        /// <summary>Bits a lost entity takes.</summary>
        int LostBits { get; }
        /// <summary>Component <paramref name="index"/>'s encoded bits, padded to a byte; throws the codec's EncodeError.</summary>
        byte[] ComponentBits(int index, C value);
        /// <summary>Bits component <paramref name="index"/> takes in a body.</summary>
        long ComponentBitLen(int index, C value);
        /// <summary>Decodes a snapshot; throws the codec's DecodeError.</summary>
        SnapshotFrame<C> DecodeSnapshot(byte[] bytes);
        /// <summary>Encodes a snapshot; throws the codec's EncodeError.</summary>
        byte[] EncodeSnapshot(SnapshotFrame<C> s);
        /// <summary>Decodes an acknowledgement's sequence; throws the codec's DecodeError.</summary>
        ushort DecodeAck(byte[] bytes);
        /// <summary>Encodes the acknowledgement of <paramref name="sequence"/>.</summary>
        byte[] EncodeAck(ushort sequence);
    }

    /// <summary>The u16 sequence arithmetic of NB-6.</summary>
    public static class Sequences
    {
        /// <summary>Whether u16 sequence <paramref name="a"/> is newer than <paramref name="b"/>
        /// (NB-6: wrapping, newer when <c>a - b</c> is in 1..=32767).</summary>
        public static bool Newer(ushort a, ushort b)
        {
            int d = (a - b) & 0xffff;
            return d != 0 && d < 0x8000;
        }

        internal static bool SameBytes(byte[] a, byte[] b)
        {
            if (a.Length != b.Length)
            {
                return false;
            }
            for (int i = 0; i < a.Length; i++)
            {
                if (a[i] != b[i])
                {
                    return false;
                }
            }
            return true;
        }
    }

    /// <summary>One live entity of a <see cref="Scene{C}"/>.</summary>
    public sealed class SceneEntity<C> where C : class
    {
        /// <summary>The occupant's generation.</summary>
        public byte Generation;
        /// <summary>The client that owns it, if any.</summary>
        public uint? Owner;
        /// <summary>Its components by schema index, null where absent.</summary>
        public C[] Values;
        /// <summary>Each component's encoded bits, null where absent.</summary>
        public byte[][] Bits;
    }

    /// <summary>The world: at most one live occupant per slot. The server's own, so its size is the
    /// server's to bound.</summary>
    public sealed class Scene<C> where C : class
    {
        readonly IBaselineSchema<C> schema;
        readonly SortedDictionary<uint, SceneEntity<C>> entities = new SortedDictionary<uint, SceneEntity<C>>();

        /// <summary>An empty world of <paramref name="schema"/>'s components.</summary>
        public Scene(IBaselineSchema<C> schema)
        {
            this.schema = schema;
        }

        /// <summary>Puts a new occupant in its slot (replacing any), with no components; a slot
        /// past 24 bits is a SessionError <c>world</c>.</summary>
        public void Spawn(EntityId entity, uint? owner)
        {
            if (entity.Slot >= 1u << 24)
            {
                throw new SessionError("world", "slot " + entity.Slot + " does not fit 24 bits");
            }
            entities[entity.Slot] = new SceneEntity<C>
            {
                Generation = entity.Generation,
                Owner = owner,
                Values = new C[schema.ComponentTypes],
                Bits = new byte[schema.ComponentTypes][],
            };
        }

        /// <summary>Removes the occupant of <paramref name="slot"/>.</summary>
        public void Despawn(uint slot)
        {
            entities.Remove(slot);
        }

        /// <summary>Sets component <paramref name="index"/> of the occupant of <paramref name="slot"/>.</summary>
        public void Set(uint slot, int index, C value)
        {
            byte[] bits;
            try
            {
                bits = schema.ComponentBits(index, value);
            }
            catch (EncodeError e)
            {
                throw new SessionError("world", "the component does not encode: " + e.Message, e);
            }
            SceneEntity<C> e2;
            if (!entities.TryGetValue(slot, out e2))
            {
                throw new SessionError("world", "slot " + slot + " is empty");
            }
            e2.Values[index] = value;
            e2.Bits[index] = bits;
        }

        /// <summary>Whether <paramref name="entity"/> (that slot, that generation) is alive.</summary>
        public bool Alive(EntityId entity)
        {
            SceneEntity<C> e;
            return entities.TryGetValue(entity.Slot, out e) && e.Generation == entity.Generation;
        }

        /// <summary>The live entities, ascending by slot.</summary>
        public IEnumerable<KeyValuePair<uint, SceneEntity<C>>> List()
        {
            return entities;
        }

        /// <summary>How many entities live.</summary>
        public int Count { get { return entities.Count; } }
    }

    /// <summary>
    /// What one connection is known to hold (NB-8): what a snapshot said is held until it is
    /// acknowledged, or a lost snapshot's content would never go again; per connection, since
    /// connections lose different packets. Keyed by entity (slot and generation), never by slot
    /// alone. Entities found dead are kept apart, so a write's cost does not grow with how many
    /// died.
    /// </summary>
    public sealed class NetBaseline
    {
        sealed class Confirmed
        {
            public byte[] Bits;
            public long Extended;
        }

        /// <summary>What a written snapshot claimed, held until it is acknowledged.</summary>
        internal sealed class Pending
        {
            public ushort Sequence;
            public List<ulong> Lost;
            public List<Held> Entries;
        }

        internal struct Held
        {
            public ulong Entity;
            public int Index;
            public byte[] Bits;
        }

        readonly int ackWindow;
        readonly int types;
        readonly Dictionary<ulong, Confirmed[]> records = new Dictionary<ulong, Confirmed[]>();
        // Entities told about and found dead, ascending, until their loss is confirmed.
        readonly SortedSet<ulong> lost = new SortedSet<ulong>();
        List<KeyValuePair<long, Pending>> pending = new List<KeyValuePair<long, Pending>>();
        bool hasNewest;
        long newest;

        /// <summary>Entities GatherLost has looked at, over the baseline's life.</summary>
        public long Examined;

        /// <summary>Nothing held; snapshots older than the newest by more than <paramref name="ackWindow"/> expire.</summary>
        public NetBaseline(int types, int ackWindow)
        {
            this.types = types;
            this.ackWindow = ackWindow;
        }

        // `sequence` extended past its wraps, relative to the newest seen.
        long Extend(ushort sequence)
        {
            if (!hasNewest)
            {
                return (1L << 40) + sequence;
            }
            int d = (sequence - (int)(newest & 0xffff)) & 0xffff;
            if (d >= 0x8000)
            {
                d -= 0x10000;
            }
            return newest + d;
        }

        void SeeNewest(long extended)
        {
            if (!hasNewest || extended > newest)
            {
                newest = extended;
                hasNewest = true;
            }
        }

        /// <summary>What is confirmed for <paramref name="entity"/>'s component <paramref
        /// name="index"/> (NB-3: by entity, never by slot), or null.</summary>
        public byte[] Find(EntityId entity, int index)
        {
            Confirmed[] r;
            if (!records.TryGetValue(entity.Key, out r) || r[index] == null)
            {
                return null;
            }
            return r[index].Bits;
        }

        internal void Hold(Pending p)
        {
            long extended = Extend(p.Sequence);
            SeeNewest(extended);
            foreach (Held h in p.Entries)
            {
                // Told about while alive: an occupant found dead that is alive again is live once more.
                lost.Remove(h.Entity);
                if (!records.ContainsKey(h.Entity))
                {
                    records[h.Entity] = new Confirmed[types];
                }
            }
            pending.RemoveAll(kv => kv.Key == extended);
            pending.Add(new KeyValuePair<long, Pending>(extended, p));
            DropOutsideWindow();
        }

        /// <summary>Folds what snapshot <paramref name="sequence"/> said into what is confirmed;
        /// one not held is ignored.</summary>
        public void Confirm(ushort sequence)
        {
            long extended = Extend(sequence);
            int i = pending.FindIndex(kv => kv.Key == extended);
            if (i < 0)
            {
                return;
            }
            Pending p = pending[i].Value;
            pending.RemoveAt(i);
            foreach (Held h in p.Entries)
            {
                Confirmed[] record;
                if (!records.TryGetValue(h.Entity, out record) || h.Index >= record.Length)
                {
                    continue;
                }
                // NB-9: a component is folded only when its snapshot is newer than what is
                // confirmed, so a late acknowledgement cannot write stale bits over fresh ones.
                Confirmed held = record[h.Index];
                if (held == null || held.Extended < extended)
                {
                    record[h.Index] = new Confirmed { Bits = h.Bits, Extended = extended };
                }
            }
            // The client removed them: forget them, so they are no longer reported.
            foreach (ulong entity in p.Lost)
            {
                lost.Remove(entity);
            }
        }

        /// <summary>Gives up on everything older than <paramref name="sequence"/> by more than the window.</summary>
        public void Expire(ushort sequence)
        {
            SeeNewest(Extend(sequence));
            DropOutsideWindow();
        }

        void DropOutsideWindow()
        {
            if (!hasNewest)
            {
                return;
            }
            List<KeyValuePair<long, Pending>> keep = new List<KeyValuePair<long, Pending>>(pending.Count);
            foreach (KeyValuePair<long, Pending> kv in pending)
            {
                if (kv.Key <= newest && newest - kv.Key <= ackWindow)
                {
                    keep.Add(kv);
                    continue;
                }
                // The client may have applied it (its ack lost or late): what is confirmed older
                // no longer describes the client, so the next snapshot says the component again.
                foreach (Held h in kv.Value.Entries)
                {
                    Confirmed[] record;
                    if (records.TryGetValue(h.Entity, out record) && record[h.Index] != null && record[h.Index].Extended < kv.Key)
                    {
                        record[h.Index] = null;
                    }
                }
            }
            pending = keep;
        }

        /// <summary>
        /// Entities told about that are no longer alive, ascending: the first <paramref
        /// name="atMost"/> are appended to <paramref name="out_"/>. NB-11: a lost entity is named
        /// until a confirmed snapshot has named it, so destruction is reliable; keyed by entity,
        /// not slot (NB-3), since a reused slot is alive in both snapshots.
        /// </summary>
        public void GatherLost<C>(Scene<C> scene, int atMost, List<EntityId> out_) where C : class
        {
            long examined = 0;
            List<ulong> dead = null;
            foreach (ulong entity in records.Keys)
            {
                examined += 1;
                if (!scene.Alive(EntityId.OfKey(entity)))
                {
                    if (dead == null)
                    {
                        dead = new List<ulong>();
                    }
                    dead.Add(entity);
                }
            }
            if (dead != null)
            {
                foreach (ulong entity in dead)
                {
                    records.Remove(entity);
                    lost.Add(entity);
                }
            }
            int taken = 0;
            List<ulong> aliveAgain = null;
            foreach (ulong entity in lost)
            {
                if (taken == atMost)
                {
                    break;
                }
                examined += 1;
                if (scene.Alive(EntityId.OfKey(entity)))
                {
                    if (aliveAgain == null)
                    {
                        aliveAgain = new List<ulong>();
                    }
                    aliveAgain.Add(entity);
                }
                else
                {
                    out_.Add(EntityId.OfKey(entity));
                    taken += 1;
                }
            }
            if (aliveAgain != null)
            {
                foreach (ulong entity in aliveAgain)
                {
                    lost.Remove(entity);
                    records[entity] = new Confirmed[types];
                }
            }
            Examined += examined;
        }

        /// <summary>Forgets everything (NB-13: for a world replaced under a live
        /// session).</summary>
        public void Clear()
        {
            records.Clear();
            lost.Clear();
            pending.Clear();
        }

        /// <summary>Snapshots held, waiting for their acknowledgement.</summary>
        public int PendingCount { get { return pending.Count; } }

        /// <summary>Entities told about and not yet confirmed lost.</summary>
        public int Told { get { return records.Count + lost.Count; } }

        /// <summary>Entities found dead whose loss the connection has not confirmed: what it is owed.</summary>
        public int OwedLost { get { return lost.Count; } }
    }

    /// <summary>
    /// Bounds on what a SnapshotWriter keeps, whatever the client does: <c>MaxOwedLost</c> lost
    /// entities the connection may be owed (default 65,536, as the Rust <c>BaselineLimits</c>).
    /// Past it the connection is stalled: Write throws a SessionError (<c>limit</c>) and writes
    /// nothing, since forgetting what is owed would be a lie to the client (NB-14).
    /// </summary>
    public struct BaselineLimits
    {
        /// <summary>Lost entities the connection may be owed.</summary>
        public int MaxOwedLost;

        /// <summary>The default: 65,536.</summary>
        public static BaselineLimits Default { get { return new BaselineLimits { MaxOwedLost = 1 << 16 }; } }
    }

    /// <summary>One connection's snapshot writer (NB-7 to NB-14, with NB-12's budget
    /// order).</summary>
    public sealed class SnapshotWriter<C> where C : class
    {
        sealed class Candidate
        {
            public EntityId Entity;
            public bool Owned;
            public long Since;
            public List<int> Types = new List<int>();
            public SceneEntity<C> Source;
        }

        readonly IBaselineSchema<C> schema;
        ushort nextSequence;
        readonly long budget;
        readonly uint? client;
        Dictionary<ulong, long> unconfirmedSince = new Dictionary<ulong, long>();
        long written;
        readonly BaselineLimits limits;

        /// <summary>What the connection is known to hold.</summary>
        public readonly NetBaseline Baseline;

        /// <summary>A writer for <paramref name="client"/>'s connection, snapshots of at most
        /// <paramref name="budget"/> bytes from sequence <paramref name="first"/>.</summary>
        public SnapshotWriter(IBaselineSchema<C> schema, uint? client, long budget, ushort first, BaselineLimits limits)
        {
            this.schema = schema;
            Baseline = new NetBaseline(schema.ComponentTypes, schema.AckWindow);
            this.client = client;
            this.budget = budget;
            nextSequence = first;
            this.limits = limits;
        }

        /// <summary>Folds the client's acknowledgement of <paramref name="sequence"/>.</summary>
        public void OnAck(ushort sequence)
        {
            Baseline.Confirm(sequence);
        }

        /// <summary>The world was replaced under the live session: forget everything held
        /// (NB-13).</summary>
        public void ReplaceWorld()
        {
            Baseline.Clear();
            unconfirmedSince.Clear();
        }

        /// <summary>
        /// Writes the next snapshot of <paramref name="scene"/>. A component goes, whole, when its
        /// bits differ from what the connection confirmed (NB-7); under the budget, NB-12's order:
        /// owned entities first, then the longest unconfirmed, then by slot. Lost entities go
        /// first, at most MaxLostPerSnapshot.
        /// </summary>
        public SnapshotFrame<C> Write(Scene<C> scene)
        {
            IBaselineSchema<C> s = schema;
            ushort sequence = nextSequence;
            long budgetBits = Math.Max(0, budget - s.HeaderBytes) * 8;
            long used = s.CountBits;
            long fit = Math.Max(0, budgetBits - used) / s.LostBits;
            List<EntityId> lost = new List<EntityId>();
            Baseline.GatherLost(scene, (int)Math.Min(fit, s.MaxLostPerSnapshot), lost);
            int owed = Baseline.OwedLost;
            // NB-11: a lost entity is named until the client confirms a snapshot that named it, so
            // destruction is reliable.
            if (owed > limits.MaxOwedLost)
            {
                throw new SessionError("limit", "snapshot " + sequence + ": the connection is owed " + owed + " lost entities, more than " + limits.MaxOwedLost);
            }
            nextSequence = unchecked((ushort)(nextSequence + 1));
            written += 1;
            Baseline.Expire(sequence);
            used += lost.Count * (long)s.LostBits;

            List<Candidate> candidates = new List<Candidate>();
            Dictionary<ulong, long> still = new Dictionary<ulong, long>();
            foreach (KeyValuePair<uint, SceneEntity<C>> kv in scene.List())
            {
                EntityId entity = new EntityId(kv.Key, kv.Value.Generation);
                Candidate c = null;
                for (int t = 0; t < kv.Value.Bits.Length; t++)
                {
                    byte[] bits = kv.Value.Bits[t];
                    if (bits == null)
                    {
                        continue;
                    }
                    byte[] held = Baseline.Find(entity, t);
                    if (held == null || !Sequences.SameBytes(held, bits))
                    {
                        if (c == null)
                        {
                            c = new Candidate { Entity = entity, Source = kv.Value };
                        }
                        c.Types.Add(t);
                    }
                }
                if (c == null)
                {
                    continue;
                }
                long since;
                if (!unconfirmedSince.TryGetValue(entity.Key, out since))
                {
                    since = written;
                }
                still[entity.Key] = since;
                c.Since = since;
                c.Owned = client.HasValue && kv.Value.Owner.HasValue && kv.Value.Owner.Value == client.Value;
                candidates.Add(c);
            }
            unconfirmedSince = still;
            // A stable sort (List.Sort is not): owned first, then the longest unconfirmed, then by slot.
            Candidate[] ordered = candidates.ToArray();
            int[] order = new int[ordered.Length];
            for (int i = 0; i < order.Length; i++)
            {
                order[i] = i;
            }
            Array.Sort(order, (a, b) =>
            {
                Candidate x = ordered[a];
                Candidate y = ordered[b];
                int c = (x.Owned ? 0 : 1).CompareTo(y.Owned ? 0 : 1);
                if (c == 0)
                {
                    c = x.Since.CompareTo(y.Since);
                }
                if (c == 0)
                {
                    c = x.Entity.Slot.CompareTo(y.Entity.Slot);
                }
                return c == 0 ? a.CompareTo(b) : c;
            });
            List<Candidate> chosen = new List<Candidate>();
            foreach (int i in order)
            {
                Candidate c = ordered[i];
                long bits = s.EntryHeadBits;
                foreach (int t in c.Types)
                {
                    bits += s.ComponentBitLen(t, c.Source.Values[t]);
                }
                if (used + bits > budgetBits || chosen.Count == 0xffff)
                {
                    continue;
                }
                used += bits;
                chosen.Add(c);
            }
            // Slots are unique within a scene, so the unstable sort is exact here.
            chosen.Sort((a, b) => a.Entity.Slot.CompareTo(b.Entity.Slot));

            WireEntry<C>[] entries = new WireEntry<C>[chosen.Count];
            List<NetBaseline.Held> held2 = new List<NetBaseline.Held>();
            bool hasPrev = false;
            uint prev = 0;
            for (int i = 0; i < chosen.Count; i++)
            {
                Candidate c = chosen[i];
                uint gap = hasPrev ? c.Entity.Slot - prev - 1 : c.Entity.Slot;
                hasPrev = true;
                prev = c.Entity.Slot;
                C[] components = new C[s.ComponentTypes];
                foreach (int t in c.Types)
                {
                    components[t] = c.Source.Values[t];
                    held2.Add(new NetBaseline.Held { Entity = c.Entity.Key, Index = t, Bits = c.Source.Bits[t] });
                }
                entries[i] = new WireEntry<C> { Gap = gap, Generation = c.Entity.Generation, Components = components };
            }
            List<ulong> lostKeys = new List<ulong>(lost.Count);
            foreach (EntityId e in lost)
            {
                lostKeys.Add(e.Key);
            }
            Baseline.Hold(new NetBaseline.Pending { Sequence = sequence, Lost = lostKeys, Entries = held2 });
            return new SnapshotFrame<C> { Sequence = sequence, Lost = lost.ToArray(), Entries = entries };
        }
    }

    /// <summary>One entity as the client holds it.</summary>
    public sealed class ClientEntity<C> where C : class
    {
        /// <summary>The occupant's generation.</summary>
        public byte Generation;

        /// <summary>Its components by schema index, null where not held.</summary>
        public C[] Components;
    }

    /// <summary>What one snapshot did.</summary>
    public struct SnapshotSummary
    {
        /// <summary>Applied and acknowledged.</summary>
        public bool Applied;
        /// <summary>Dropped: not newer than the last applied.</summary>
        public bool Stale;
        /// <summary>Dropped: its slots run past 24 bits.</summary>
        public bool Malformed;
        /// <summary>Entities removed.</summary>
        public int Removed;
        /// <summary>Lost entities not removed: the slot holds another occupant, or nothing.</summary>
        public int NotOurs;
        /// <summary>Entities created (or replacing another occupant of their slot).</summary>
        public int Created;
        /// <summary>Entities updated.</summary>
        public int Updated;
        /// <summary>Entries refused for room.</summary>
        public int Refused;
    }

    /// <summary>
    /// The client's side (`docs/spec/baseline.md`): a snapshot newer than the last applied
    /// (wrapping u16) is applied and acknowledged; an older one is dropped unacknowledged. At most
    /// <c>maxEntities</c> are held (default 65,536, as the Rust client); an entry for a new slot
    /// past it is refused.
    /// </summary>
    public sealed class SnapshotClient<C> where C : class
    {
        /// <summary>The default bound on entities held.</summary>
        public const int DefaultMaxEntities = 1 << 16;

        readonly IBaselineSchema<C> schema;
        readonly SortedDictionary<uint, ClientEntity<C>> entities = new SortedDictionary<uint, ClientEntity<C>>();
        bool hasLast;
        ushort last;
        List<ushort> acks = new List<ushort>();
        readonly int maxEntities;

        /// <summary>An empty client holding at most <paramref name="maxEntities"/>.</summary>
        public SnapshotClient(IBaselineSchema<C> schema, int maxEntities)
        {
            this.schema = schema;
            this.maxEntities = maxEntities;
        }

        /// <summary>The last snapshot applied, if any.</summary>
        public ushort? Last { get { return hasLast ? last : (ushort?)null; } }

        /// <summary>How many entities are held.</summary>
        public int Count { get { return entities.Count; } }

        /// <summary>The sequences to acknowledge; a second call returns nothing new.</summary>
        public List<ushort> TakeAcks()
        {
            List<ushort> a = acks;
            acks = new List<ushort>();
            return a;
        }

        /// <summary>The world was replaced: drop the table and every snapshot before <paramref name="firstSequence"/>.</summary>
        public void ReplaceWorld(ushort firstSequence)
        {
            entities.Clear();
            hasLast = true;
            last = unchecked((ushort)(firstSequence - 1));
        }

        /// <summary>Applies one snapshot.</summary>
        public SnapshotSummary Receive(SnapshotFrame<C> snapshot)
        {
            SnapshotSummary s = new SnapshotSummary();
            if (hasLast && !Sequences.Newer(snapshot.Sequence, last))
            {
                s.Stale = true;
                return s;
            }
            // Resolve the slot gaps first: a slot past 24 bits makes the snapshot malformed, whole.
            uint[] slots = new uint[snapshot.Entries.Length];
            bool hasPrev = false;
            ulong prev = 0;
            for (int i = 0; i < slots.Length; i++)
            {
                ulong slot = hasPrev ? prev + snapshot.Entries[i].Gap + 1 : snapshot.Entries[i].Gap;
                if (slot >= 1UL << 24)
                {
                    s.Malformed = true;
                    return s;
                }
                slots[i] = (uint)slot;
                hasPrev = true;
                prev = slot;
            }
            foreach (EntityId lost in snapshot.Lost)
            {
                // By entity: only the occupant named goes.
                ClientEntity<C> e;
                if (entities.TryGetValue(lost.Slot, out e) && e.Generation == lost.Generation)
                {
                    entities.Remove(lost.Slot);
                    s.Removed += 1;
                }
                else
                {
                    s.NotOurs += 1;
                }
            }
            for (int i = 0; i < slots.Length; i++)
            {
                WireEntry<C> e = snapshot.Entries[i];
                ClientEntity<C> held;
                bool had = entities.TryGetValue(slots[i], out held);
                if (had && held.Generation == e.Generation)
                {
                    for (int t = 0; t < e.Components.Length && t < held.Components.Length; t++)
                    {
                        if (e.Components[t] != null)
                        {
                            held.Components[t] = e.Components[t];
                        }
                    }
                    s.Updated += 1;
                    continue;
                }
                if (!had && entities.Count >= maxEntities)
                {
                    s.Refused += 1;
                    continue;
                }
                // Another occupant of the slot: nothing of the old one carries over.
                C[] components = new C[schema.ComponentTypes];
                for (int t = 0; t < e.Components.Length && t < components.Length; t++)
                {
                    components[t] = e.Components[t];
                }
                entities[slots[i]] = new ClientEntity<C> { Generation = e.Generation, Components = components };
                s.Created += 1;
            }
            hasLast = true;
            last = snapshot.Sequence;
            acks.Add(snapshot.Sequence);
            s.Applied = true;
            return s;
        }

        /// <summary>
        /// The canonical bytes the state hash is the FNV-1a of: per entity in ascending slot,
        /// <c>u32 slot</c> (little endian), <c>u8 generation</c>, <c>u8 mask</c> (bit i: component i
        /// held), then each held component's bits in schema order, each padded to a byte.
        /// </summary>
        public byte[] CanonicalBytes()
        {
            List<byte> parts = new List<byte>();
            foreach (KeyValuePair<uint, ClientEntity<C>> kv in entities)
            {
                uint slot = kv.Key;
                parts.Add(unchecked((byte)slot));
                parts.Add(unchecked((byte)(slot >> 8)));
                parts.Add(unchecked((byte)(slot >> 16)));
                parts.Add(unchecked((byte)(slot >> 24)));
                parts.Add(kv.Value.Generation);
                int mask = 0;
                C[] cs = kv.Value.Components;
                for (int i = 0; i < cs.Length; i++)
                {
                    if (cs[i] != null)
                    {
                        mask |= 1 << i;
                    }
                }
                parts.Add(unchecked((byte)mask));
                for (int i = 0; i < cs.Length; i++)
                {
                    if (cs[i] == null)
                    {
                        continue;
                    }
                    try
                    {
                        // A decoded value always re-encodes (canonical decoding).
                        parts.AddRange(schema.ComponentBits(i, cs[i]));
                    }
                    catch (EncodeError)
                    {
                        // As the Rust client: nothing for a value that would not encode.
                    }
                }
            }
            return parts.ToArray();
        }

        /// <summary>FNV-1a 32 of <see cref="CanonicalBytes"/>.</summary>
        public uint StateHash()
        {
            return Fnv.Fnv1a32(CanonicalBytes());
        }
    }

    /// <summary>What a <c>snapshot_ack</c> left the baseline server holding.</summary>
    public struct BaselineAckReport
    {
        /// <summary>Snapshots sent and not yet confirmed.</summary>
        public int Pending;
        /// <summary>Entities the client was told about.</summary>
        public int Told;
    }

    /// <summary>The server's half: a SnapshotWriter, one unreliable snapshot a tick of the scene it
    /// is given. A frame is a <c>snapshot_ack</c>.</summary>
    public sealed class BaselineServer<C> : ISessionHalf<Scene<C>, BaselineAckReport> where C : class
    {
        readonly IBaselineSchema<C> schema;
        readonly Outbox out_ = new Outbox();

        /// <summary>The machine, for its lower-level methods.</summary>
        public readonly SnapshotWriter<C> Writer;

        /// <summary>The half over <paramref name="writer"/>.</summary>
        public BaselineServer(IBaselineSchema<C> schema, SnapshotWriter<C> writer)
        {
            this.schema = schema;
            Writer = writer;
        }

        /// <summary>A <c>snapshot_ack</c> arrives.</summary>
        public BaselineAckReport HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.AckFrame);
            ushort seq;
            try
            {
                seq = schema.DecodeAck(bytes);
            }
            catch (DecodeError e)
            {
                throw new SessionError("decode", e.Message, e);
            }
            Writer.OnAck(seq);
            return new BaselineAckReport { Pending = Writer.Baseline.PendingCount, Told = Writer.Baseline.Told };
        }

        /// <summary>A tick passes: the next snapshot of <paramref name="scene"/> is queued.</summary>
        public void HandleTick(Now now, Scene<C> scene)
        {
            SnapshotFrame<C> s = Writer.Write(scene);
            byte[] bytes;
            try
            {
                bytes = schema.EncodeSnapshot(s);
            }
            catch (EncodeError e)
            {
                throw new SessionError("encode", e.Message, e);
            }
            out_.Push(new Transmit(schema.SnapshotFrame, bytes, false));
        }

        /// <summary>The next snapshot to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return out_.Poll();
        }
    }

    /// <summary>The client's half: a SnapshotClient; a frame is a <c>snapshot</c>, its acks polled.</summary>
    public sealed class BaselineClient<C> : ISessionHalf<object, SnapshotSummary> where C : class
    {
        readonly IBaselineSchema<C> schema;
        readonly Outbox out_ = new Outbox();

        /// <summary>The machine, for its lower-level methods.</summary>
        public readonly SnapshotClient<C> Client;

        /// <summary>The half over <paramref name="client"/>.</summary>
        public BaselineClient(IBaselineSchema<C> schema, SnapshotClient<C> client)
        {
            this.schema = schema;
            Client = client;
        }

        /// <summary>A <c>snapshot</c> arrives; a bad one is a SessionError and changes nothing.</summary>
        public SnapshotSummary HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.SnapshotFrame);
            SnapshotFrame<C> snapshot;
            try
            {
                snapshot = schema.DecodeSnapshot(bytes);
            }
            catch (DecodeError e)
            {
                throw new SessionError("decode", e.Message, e);
            }
            SnapshotSummary summary = Client.Receive(snapshot);
            foreach (ushort seq in Client.TakeAcks())
            {
                out_.Push(new Transmit(schema.AckFrame, schema.EncodeAck(seq), false));
            }
            return summary;
        }

        /// <summary>The client has nothing to do on a tick.</summary>
        public void HandleTick(Now now, object input)
        {
        }

        /// <summary>The next ack to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return out_.Poll();
        }
    }
}
