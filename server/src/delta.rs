//! Delta streaming (`docs/spec/delta.md`, module `delta`): one [`DeltaBaseline`] per subscriber.
//!
//! Everything here is defined in `ackwire-codec` ([`ackwire_codec::delta`]) and re-exported
//! (SRV-1): `SetDigest`, `SlotKey`, `SlotAllocator`, `ReusePolicy`, `DeltaMirror`, `Agreement` and
//! `Divergence` are what both ends of a delta stream compute with, so they have one implementation.
//! The server half, [`DeltaBaseline`], lives beside its client half in the codec too: it needs none
//! of this crate's primitives, both halves of every session machine live in the codec, and the fuzz
//! target drives both through one harness there.
//!
//! ```
//! use ackwire_server::delta::{DeltaBaseline, SlotKey};
//! use std::collections::BTreeSet;
//!
//! let mut baseline = DeltaBaseline::new(32).with_flow(3_000, 1_000);
//! baseline.reset(); // a subscriber takes the slot
//! let visible: BTreeSet<u64> = [SlotKey::new(4, 1).encode()].into();
//! if baseline.should_send(0) {
//!     let plan = baseline.plan(&visible, 1);
//!     assert!(plan.full_baseline);
//! }
//! ```

pub use ackwire_codec::delta::{
    AckWindow, Agreement, Applied, DeltaBaseline, DeltaMirror, DeltaPlan, Divergence,
    RecoveryPolicy, ReusePolicy, SetDigest, SlotAllocator, SlotKey, WINDOW,
};
