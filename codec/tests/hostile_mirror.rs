//! Issue 13, hostile peers: a delta-streaming server that floods its subscriber's [`DeltaMirror`]
//! with keys. A slot index is 32 bits, so nothing in the stream itself stops a mirror growing
//! toward 2^32 occupants; [`MirrorLimits`] does, refusing whole a plan that would take it past
//! `max_keys` (DELTA-24). Judged by a counting allocator, never by time.

#[global_allocator]
static A: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

use ackwire_codec::delta::{DeltaMirror, DeltaPlan, MirrorLimits, SlotKey};
use ackwire_codec::protocol;
use ackwire_codec::LimitError;
use ackwire_testkit::{is_counting, measure};

/// A plan of sequence `seq` announcing `entered` and retracting `left` (slot, generation).
fn plan(seq: u64, full: bool, entered: &[(u32, u16)], left: &[(u32, u16)]) -> protocol::DeltaPlan {
    let keys = |ks: &[(u32, u16)]| {
        ks.iter()
            .map(|(i, g)| SlotKey::new(*i, *g).encode())
            .collect()
    };
    DeltaPlan {
        full_baseline: full,
        baseline_seq: None,
        entered: keys(entered),
        left: keys(left),
    }
    .to_frame(seq)
}

/// `n` new slots from `first`, generation 1.
fn fresh(first: u32, n: u32) -> Vec<(u32, u16)> {
    (first..first + n).map(|i| (i, 1)).collect()
}

/// A mirror with default limits after `plans` plans of 1,000 keys it never held: the heap it
/// keeps, the keys it holds, how many plans it refused and the first refusal.
fn flooded(plans: u64) -> (i64, usize, u64, Option<LimitError>) {
    let m = measure(|| {
        let mut mirror = DeltaMirror::<()>::new();
        let (mut refused, mut first_refusal) = (0, None);
        for seq in 1..=plans {
            let first = u32::try_from((seq - 1) * 1000).unwrap();
            if let Err(e) = mirror.apply(&plan(seq, false, &fresh(first, 1000), &[])) {
                refused += 1;
                first_refusal.get_or_insert(e);
            }
        }
        (mirror, refused, first_refusal)
    });
    let (mirror, refused, first_refusal) = m.value;
    (m.retained_bytes, mirror.len(), refused, first_refusal)
}

#[test]
fn a_server_flooding_new_keys_cannot_grow_the_mirror_past_its_limit() {
    // DELTA-24.
    assert!(is_counting());
    let max_keys = MirrorLimits::default().max_keys;
    // Before the limit, 100 plans of 1,000 new keys kept 1.56 MB and 2,000 plans 31.2 MB
    // (2,000,000 keys): about 15 bytes a key, 2 heap bytes per wire byte, without end.
    let (short, short_held, short_refused, _) = flooded(100);
    let (long, long_held, long_refused, first_refusal) = flooded(2_000);
    // 65 plans fit (65,000 keys); every later one would pass 65,536 and is refused whole.
    assert_eq!((short_held, long_held), (65_000, 65_000));
    assert_eq!((short_refused, long_refused), (35, 1_935));
    assert_eq!(
        first_refusal,
        Some(LimitError::MirrorKeys {
            sequence: Some(66),
            would_hold: 66_000,
            max_keys,
        })
    );
    assert_eq!(
        long, short,
        "2,000 plans kept {long} bytes, 100 kept {short}"
    );
    assert!(long < 2 << 20, "the mirror at its limit keeps {long} bytes");
}

fn small(max_keys: usize) -> DeltaMirror {
    DeltaMirror::<()>::new().with_limits(MirrorLimits { max_keys })
}

#[test]
fn a_refused_plan_is_neither_applied_nor_acknowledged_and_a_later_one_that_fits_is() {
    // DELTA-24.
    let mut m = small(8);
    m.apply(&plan(1, true, &fresh(0, 6), &[])).unwrap();
    let (digest, ack) = (m.digest(), m.ack());
    let err = m.apply(&plan(2, false, &fresh(100, 3), &[])).unwrap_err();
    assert_eq!(
        err,
        LimitError::MirrorKeys {
            sequence: Some(2),
            would_hold: 9,
            max_keys: 8,
        }
    );
    assert_eq!(
        err.to_string(),
        "delta mirror, delta_plan 2: would hold 9 keys, over max_keys = 8"
    );
    // As if the network had lost it: the server's next plan says it again.
    assert_eq!((m.len(), m.digest(), m.ack()), (6, digest, ack));
    assert!(!m.acks().contains(2));
    assert_eq!(m.applied_seq(), Some(1));
    let a = m.apply(&plan(3, false, &fresh(100, 2), &[])).unwrap();
    assert!(a.applied && a.entered == 2);
    assert_eq!(m.len(), 8);
}

#[test]
fn only_the_occupants_a_plan_would_leave_count_against_the_limit() {
    let mut m = small(4);
    m.apply(&plan(1, true, &fresh(0, 4), &[])).unwrap();
    // At the limit: a new generation in a held slot replaces its tenant; a retraction makes
    // room for an arrival; a full baseline counts only what it brings.
    m.apply(&plan(2, false, &[(0, 2), (3, 7)], &[])).unwrap();
    m.apply(&plan(3, false, &[(9, 1)], &[(1, 1)])).unwrap();
    assert_eq!(m.len(), 4);
    m.apply(&plan(4, true, &fresh(50, 4), &[])).unwrap();
    assert_eq!(m.len(), 4);
    // A retraction of an occupant not held (another generation) makes no room.
    let e = m
        .apply(&plan(5, false, &[(60, 1)], &[(50, 9)]))
        .unwrap_err();
    assert!(
        matches!(e, LimitError::MirrorKeys { would_hold: 5, .. }),
        "{e}"
    );
    // Two generations of one slot in one plan take one slot.
    m.apply(&plan(
        6,
        true,
        &[(7, 1), (7, 2), (8, 1), (9, 1), (10, 1)],
        &[],
    ))
    .unwrap();
    assert_eq!(m.len(), 4);
    let e = m.apply(&plan(7, true, &fresh(0, 5), &[])).unwrap_err();
    assert!(
        matches!(e, LimitError::MirrorKeys { would_hold: 5, .. }),
        "{e}"
    );
    // A plan not newer than the newest applied is acknowledged and not applied, as before,
    // however large.
    let stale = m.apply(&plan(6, false, &fresh(500, 50), &[])).unwrap();
    assert!(!stale.applied);
    assert_eq!(m.len(), 4);
}

#[test]
fn an_insert_of_a_new_slot_at_the_limit_is_refused() {
    let mut m = small(2);
    m.insert(SlotKey::new(1, 1), ()).unwrap();
    m.insert(SlotKey::new(2, 1), ()).unwrap();
    m.insert(SlotKey::new(2, 2), ()).unwrap();
    assert_eq!(
        m.insert(SlotKey::new(3, 1), ()),
        Err(LimitError::MirrorKeys {
            sequence: None,
            would_hold: 3,
            max_keys: 2,
        })
    );
    assert_eq!(
        m.keys().collect::<Vec<_>>(),
        [SlotKey::new(1, 1), SlotKey::new(2, 2)]
    );
}
