// Order-independent set digests, bit for bit as DELTA-3 to DELTA-6 define them (and as the Rust
// codec's `digest` module, the TypeScript and the C++ runtimes compute them), so that plaza, Rust,
// TypeScript, C++ and C# peers can check each other:
//
// - SlotKey = (index << 16) | generation, with a u32 index and a u16 generation;
// - mix64 is the SplitMix64 finalizer: add 0x9E3779B97F4A7C15, then x ^= x >> 30,
//   x *= 0xBF58476D1CE4E5B9, x ^= x >> 27, x *= 0x94D049BB133111EB, x ^= x >> 31 (all wrapping);
// - a SetDigest keeps a wrapping u64 sum of mix64(key) and a wrapping u32 count, and its digest
//   is sum ^ mix64(count).
//
// Every step is ulong arithmetic in an unchecked context, since DELTA-4 and DELTA-5 wrap (a build
// with -checked+ must not turn it into an OverflowException).

namespace Ackwire.Runtime.Sessions
{
    /// <summary>
    /// A slot index and the generation of its occupant (DELTA-3: the key is what the digest
    /// hashes), so that a respawn in the same slot is a different key.
    /// </summary>
    public struct SlotKey
    {
        /// <summary>The slot (u32).</summary>
        public uint Index;

        /// <summary>The occupant's generation (u16), bumped each time the slot is reused.</summary>
        public ushort Generation;

        /// <summary>The key of <paramref name="index"/>'s occupant <paramref name="generation"/>.</summary>
        public SlotKey(uint index, ushort generation)
        {
            Index = index;
            Generation = generation;
        }

        /// <summary><c>(index &lt;&lt; 16) | generation</c> (DELTA-3 to DELTA-6).</summary>
        public ulong Encode()
        {
            return ((ulong)Index << 16) | Generation;
        }

        /// <summary>The key <paramref name="key"/> encodes: bits above the 48 a SlotKey sets are
        /// ignored, so any u64 decodes (as the Rust <c>split_slot_key</c>).</summary>
        public static SlotKey Decode(ulong key)
        {
            return new SlotKey(unchecked((uint)(key >> 16)), unchecked((ushort)key));
        }

        /// <summary>"index:generation".</summary>
        public override string ToString()
        {
            return Index + ":" + Generation;
        }
    }

    /// <summary>mix64 and the SlotKey packing (DELTA-3 to DELTA-6).</summary>
    public static class Digests
    {
        /// <summary>The golden gamma SplitMix64 adds before it mixes.</summary>
        public const ulong GoldenGamma = 0x9E3779B97F4A7C15UL;

        /// <summary>
        /// The SplitMix64 finalizer of <c>key + 0x9E3779B97F4A7C15</c>, every step wrapping
        /// (DELTA-3 to DELTA-6): <c>Mix64(0) == 0xE220A8397B1DCDAF</c>.
        /// </summary>
        public static ulong Mix64(ulong key)
        {
            unchecked
            {
                ulong x = key + GoldenGamma;
                x ^= x >> 30;
                x *= 0xBF58476D1CE4E5B9UL;
                x ^= x >> 27;
                x *= 0x94D049BB133111EBUL;
                x ^= x >> 31;
                return x;
            }
        }

        /// <summary><c>(index &lt;&lt; 16) | generation</c> for a u32 index and a u16 generation.</summary>
        public static ulong SlotKeyOf(uint index, ushort generation)
        {
            return ((ulong)index << 16) | generation;
        }
    }

    /// <summary>
    /// An order-independent checksum of a set of u64 keys, maintained incrementally. DELTA-5: a sum
    /// of a mixed hash per key, so independent of order and kept incrementally: inserting then
    /// removing a key gives back the digest before. It does not remember which keys it holds:
    /// insert a key only when it enters the set and remove it only when it leaves. A struct of two
    /// words: nothing is allocated per key.
    /// </summary>
    public struct SetDigest
    {
        ulong sum;
        uint count;

        /// <summary>The digest of <paramref name="keys"/>, in any order.</summary>
        public static SetDigest FromKeys(System.Collections.Generic.IEnumerable<ulong> keys)
        {
            SetDigest d = new SetDigest();
            foreach (ulong k in keys)
            {
                d.Insert(k);
            }
            return d;
        }

        /// <summary>Folds <paramref name="key"/> into the set.</summary>
        public void Insert(ulong key)
        {
            unchecked
            {
                sum += Digests.Mix64(key);
                count += 1;
            }
        }

        /// <summary>Takes <paramref name="key"/> out: the exact inverse of <see cref="Insert"/>.</summary>
        public void Remove(ulong key)
        {
            unchecked
            {
                sum -= Digests.Mix64(key);
                count -= 1;
            }
        }

        /// <summary>Back to the digest of the empty set.</summary>
        public void Clear()
        {
            sum = 0;
            count = 0;
        }

        /// <summary>How many keys are held (a wrapping u32).</summary>
        public uint Count { get { return count; } }

        /// <summary>The value two ends compare: <c>sum ^ mix64(count)</c>.</summary>
        public ulong Digest()
        {
            return sum ^ Digests.Mix64(count);
        }
    }
}
