//! Issue 16: once warm, the client's [`AckedDecoder`] allocates nothing per frame. A world of
//! 901 entities like the cube scene's (90 moving every tick, 8 resting ones measured again each
//! tick in turn, one entity respawned under its id every 10 ticks, an event now and then, a
//! check every CHECK_EVERY frames), each frame onto a base 6 frames old (a 100 ms round trip at
//! 60 Hz): after a warm-up longer than HELD_RING frames, 300 deliveries allocate 0 times,
//! counted with the counting allocator (never timed).
//!
//! Issue 19: the same world's frames as kind 12 ([`PackedReference`], converted at the frame's
//! edge) allocate no more than kind 6's: 0 too.

use ackwire_codec::acked::{
    delta, server_check, AckedDecoder, AckedFrame, AckedSchema, Delivery, Entry, PackedReference,
    Reference, ServerState,
};
use ackwire_codec::protocol::{Change, EntityState, Event, Shot, StateFlags};
use ackwire_codec::BitSet;

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

const WORLD: u16 = 901;
const MOVING: u16 = 90;
const RESTING_MEASURED: u32 = 8;
const ROUND_TRIP: u32 = 6;
/// Ticks between two measurements of a resting entity: its 811 entities 8 a tick.
const PERIOD: u32 = (WORLD - MOVING) as u32 / RESTING_MEASURED + 1;

fn world(t: u32) -> ServerState<EntityState> {
    (0..WORLD)
        .map(|eid| {
            let e = u32::from(eid);
            // The resting ones past the movers are measured again 8 a tick, in turn: each once
            // every PERIOD ticks, at its own phase.
            let measured = if eid < MOVING {
                t
            } else {
                let phase = (e - u32::from(MOVING)) / RESTING_MEASURED;
                if t < phase {
                    1
                } else {
                    t - (t - phase) % PERIOD
                }
            };
            let x = if eid < MOVING {
                (e * 64 + t) as i32
            } else {
                (e * 64) as i32
            };
            let mut flags = StateFlags::empty();
            flags.set(StateFlags::POSE_FULL, true);
            let record = EntityState {
                x,
                y: -x,
                z: 3,
                yaw: 12345,
                flags,
                measured,
                hp: 100,
                armor: 0,
                vehicle: 0,
                seat: 0,
                orient: None,
            };
            let life = if eid == WORLD - 1 { 1 + t / 10 } else { 1 };
            (eid, Entry { life, record })
        })
        .collect()
}

/// What 300 warm deliveries of the world's frames, written by schema `S`, allocate: the times
/// and the bytes.
fn warm_allocations<S>() -> (u64, u64)
where
    S: AckedSchema<Record = EntityState, Change = Change, Event = Event> + Default,
{
    let schema = S::default();
    assert!(ackwire_testkit::is_counting());
    let ticks = 500u32;
    let states: Vec<ServerState<EntityState>> = (0..=ticks).map(world).collect();
    let frames: Vec<Vec<u8>> = (1..=ticks)
        .map(|t| {
            let keyframe = t == 1;
            let b = t.saturating_sub(ROUND_TRIP).max(1);
            let base = (!keyframe).then(|| &states[b as usize]);
            let next = &states[t as usize];
            let (removed, changes) = delta(&schema, base, next, t).unwrap();
            let events: Vec<Event> = (0..(t % 3) as u8)
                .map(|w| {
                    Event::Shot(Shot {
                        shooter: 1,
                        weapon: w,
                        yaw: 0.0,
                    })
                })
                .collect();
            let frame = AckedFrame {
                tick: t,
                base_tick: if keyframe { 0 } else { b },
                last_seq: t,
                input_buffer: 2,
                keyframe,
                check: (t % schema.check_every() == 0).then(|| server_check(&schema, next)),
                removed,
                changes,
                first_serial: t,
                events,
            };
            let mut out = Vec::new();
            schema.encode_frame(&frame, &mut out).unwrap();
            out
        })
        .collect();
    let mut d = AckedDecoder::<S>::new();
    let warm = 200;
    let deliver = |d: &mut AckedDecoder<S>, bytes: &[u8]| match d.deliver(bytes) {
        Delivery::Shown(r) => {
            assert_ne!(r.check, Some(false));
            r.changed.len()
        }
        other => panic!("a frame was not shown: {other:?}"),
    };
    for bytes in &frames[..warm] {
        deliver(&mut d, bytes);
    }
    let m = ackwire_testkit::measure(|| {
        frames[warm..]
            .iter()
            .map(|bytes| deliver(&mut d, bytes))
            .sum::<usize>()
    });
    let delivered = frames.len() - warm;
    assert!(
        m.value > delivered * usize::from(MOVING),
        "{} changed",
        m.value
    );
    let c = d.counters();
    assert_eq!(c.applied, u64::from(ticks));
    assert!(c.checks_passed >= 16 && c.events_shown > 300, "{c:?}");
    assert_eq!(d.shown().map(|(_, s)| s.len()), Some(usize::from(WORLD)));
    (m.allocations, m.allocated_bytes)
}

#[test]
fn a_warm_delivery_allocates_nothing() {
    let (allocations, bytes) = warm_allocations::<Reference>();
    assert_eq!(
        allocations, 0,
        "300 warm deliveries allocated {allocations} times ({bytes} bytes)"
    );
}

/// Kind 12 decodes through the generated reader into a kept kind 12 frame and converts it into
/// the decoder's kind 6 frame, both reusing their lists: no more allocations than kind 6's.
#[test]
fn a_warm_kind_12_delivery_allocates_no_more_than_kind_6() {
    let six = warm_allocations::<Reference>();
    let twelve = warm_allocations::<PackedReference>();
    assert!(
        twelve.0 <= six.0,
        "300 warm kind 12 deliveries allocated {} times ({} bytes), kind 6's {} ({} bytes)",
        twelve.0,
        twelve.1,
        six.0,
        six.1
    );
    assert_eq!(twelve.0, 0, "{} bytes", twelve.1);
}
