//! Hostile clients of the acked server half (GEN-5: ACK-25 over the input schedule of SRV-13)
//! judged by the counting allocator: what one client's encoder allocates and holds,
//! whatever its kind 7 frames say, never how long they took.

use ackwire_codec::protocol::{Buttons, Event, Input, Shot};
use ackwire_codec::BitSet;
use ackwire_server::acked::{
    AckVerdict, Presenter, ReferenceEncoder, ViewConfig, World, WorldEntity, MAX_BUFFERED_INPUTS,
};
use ackwire_server::input_schedule::InputWindow;
use ackwire_testkit::{is_counting, measure};

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

/// The reference schema's ring of frames kept (SENT_RING) and the frames an event is carried.
const SENT_RING: usize = 32;
const EVENT_TTL: usize = 60;

/// A world of `n` entities, each a little further along at `tick`.
fn world(n: u16, tick: u32) -> World {
    (1..=n)
        .map(|eid| {
            let e = WorldEntity {
                life: 1,
                x: f32::from(eid) + tick as f32 * 0.25,
                y: f32::from(eid % 7),
                z: 0.0,
                yaw: 0.0,
                hp: 100,
                armor: 0,
                vehicle: 0,
                seat: 0,
                orient: None,
            };
            (eid, e)
        })
        .collect()
}

fn input(tick: u32) -> Input {
    Input {
        tick,
        buttons: Buttons::empty(),
        move_x: 0.0,
        move_y: 0.0,
        yaw: 0.0,
    }
}

fn shot() -> Event {
    Event::Shot(Shot {
        shooter: 1,
        weapon: 1,
        yaw: 0.0,
    })
}

/// An encoder that sent ticks 1 to `ticks` of a world of 64 entities, with an event each.
fn sent(ticks: u32) -> ReferenceEncoder {
    let mut presenter = Presenter::new(ViewConfig::default());
    let mut encoder = ReferenceEncoder::new(InputWindow::new(4, 64));
    for t in 1..=ticks {
        let state = presenter.present(t, &world(64, t));
        encoder.encode(t, state, [shot()]).unwrap();
    }
    encoder
}

/// Acknowledgements of ticks from the future, ancient, repeated, older than the base, zero or
/// `u32::MAX`: none allocates, none moves the base, each is counted.
#[test]
fn acks_of_any_tick_allocate_nothing_and_move_no_base() {
    assert!(is_counting(), "the counting allocator is not installed");
    let mut encoder = sent(100);
    assert_eq!(encoder.on_ack(100, 99, false, 0, []), AckVerdict::Taken);
    let hostile = [101, 5_000, u32::MAX, 1, 99, 50, 0, 68];
    let acks = measure(|| {
        for round in 0..10_000usize {
            let tick = hostile[round % hostile.len()];
            encoder.on_ack(100, tick, false, 0, []);
        }
    });
    assert_eq!(acks.allocations, 0);
    assert_eq!(acks.retained_bytes, 0);
    assert_eq!(encoder.acked(), Some(99));
    let c = encoder.counters();
    assert_eq!((c.acks_taken, c.acks_unknown + c.acks_old), (1, 8_750));
    assert!(encoder.kept() <= SENT_RING);
}

/// Kind 7 bytes that do not decode are refused with an error and leave nothing behind.
#[test]
fn garbage_ack_frames_are_refused_and_hold_nothing() {
    assert!(is_counting(), "the counting allocator is not installed");
    let mut encoder = sent(40);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let garbage: Vec<Vec<u8>> = (0..2_000usize)
        .map(|i| {
            (0..i % 40)
                .map(|j| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Mostly kind 7, so the decoder reads on into forged counts.
                    if j == 0 && i % 3 > 0 {
                        7
                    } else {
                        x as u8
                    }
                })
                .collect()
        })
        .collect();
    let acked = encoder.acked();
    let m = measure(|| {
        garbage
            .iter()
            .filter(|g| encoder.receive(40, g).is_err())
            .count()
    });
    assert!(m.value > 1_500, "{} refused", m.value);
    assert!(m.retained_bytes <= 0, "{} bytes kept", m.retained_bytes);
    // A refused frame costs an error's field path at most: a few allocations, not its counts.
    assert!(
        m.allocations <= 8 * 2_000,
        "{} allocations for 2,000 frames",
        m.allocations
    );
    assert_eq!(encoder.acked(), acked);
}

/// A client that never acknowledges costs its ring and its events' time to live, and no more
/// however long it stays silent: the same bytes held after 200 ticks and after 2,000.
#[test]
fn a_never_acking_client_holds_its_ring_and_no_more() {
    assert!(is_counting(), "the counting allocator is not installed");
    let short = measure(|| sent(200));
    let long = measure(|| sent(2_000));
    assert!(long.value.kept() <= SENT_RING);
    assert!(long.value.pending_events() <= EVENT_TTL);
    let grown = long.retained_bytes - short.retained_bytes;
    assert!(
        grown.abs() <= 4_096,
        "{} bytes held after 200 ticks, {} after 2,000",
        short.retained_bytes,
        long.retained_bytes
    );
    eprintln!(
        "a never-acking client of a 64-entity world: {} bytes held",
        long.retained_bytes
    );
}

/// An input flood fills the schedule to MAX_BUFFERED_INPUTS, whatever the window, and past it
/// allocates nothing: each further input is judged, counted and dropped.
#[test]
fn an_input_flood_holds_the_buffer_and_allocates_nothing_past_it() {
    assert!(is_counting(), "the counting allocator is not installed");
    let wide = InputWindow::new(u64::MAX, u64::MAX);
    let mut encoder = ReferenceEncoder::new(wide);
    let flood = |encoder: &mut ReferenceEncoder, round: u32| {
        // 255 inputs a frame, each aimed at a tick of its own.
        let inputs = (0..255u32).map(move |i| (round * 255 + i, input(i)));
        encoder.on_ack(1_000, 0, false, round * 255 + 1, inputs);
    };
    let filling = measure(|| {
        for round in 0..2 {
            flood(&mut encoder, round);
        }
    });
    assert_eq!(encoder.inputs().pending(), MAX_BUFFERED_INPUTS);
    let past = measure(|| {
        for round in 2..200 {
            flood(&mut encoder, round);
        }
    });
    assert_eq!(
        past.allocations, 0,
        "past the buffer, an input allocates nothing"
    );
    assert_eq!(encoder.inputs().pending(), MAX_BUFFERED_INPUTS);
    assert_eq!(
        encoder.counters().inputs_overflow,
        200 * 255 - MAX_BUFFERED_INPUTS as u64
    );
    // Each buffered input at its size and a map entry's share (a tick of its own each).
    let per_input = std::mem::size_of::<Input>() + 64;
    assert!(
        filling.retained_bytes <= (MAX_BUFFERED_INPUTS * per_input) as i64,
        "{} bytes for {MAX_BUFFERED_INPUTS} inputs",
        filling.retained_bytes
    );
}

/// `heap_bytes`, the memory per client `ackwire bench` reports, is the heap a client's server
/// half holds as the allocator counts it: a presenter and an encoder over a world of 901
/// entities, 90 moving a tick, acknowledged 6 ticks late, then silent until the ring is full.
#[test]
fn heap_bytes_is_what_a_clients_server_half_holds() {
    assert!(is_counting(), "the counting allocator is not installed");
    let moving = |t: u32| {
        let mut w = world(901, 0);
        for (eid, e) in w.iter_mut().take(90) {
            e.x = f32::from(*eid) + t as f32 * 0.25;
        }
        w
    };
    let worlds: Vec<World> = (0..=300).map(moving).collect();
    for silent_from in [300, 150] {
        let held = measure(|| {
            let mut presenter = Presenter::new(ViewConfig::default());
            let mut encoder = ReferenceEncoder::new(InputWindow::new(4, 64));
            for t in 1..=300u32 {
                if t > 6 && t < silent_from {
                    encoder.on_ack(u64::from(t), t - 6, false, 0, []);
                }
                let state = presenter.present(t, &worlds[t as usize]);
                encoder.encode(t, state, []).unwrap();
            }
            (presenter, encoder)
        });
        let (presenter, encoder) = &held.value;
        let counted = ackwire_codec::acked::heap_bytes(presenter, encoder) as i64;
        let retained = held.retained_bytes;
        eprintln!(
            "silent from {silent_from}: {counted} bytes counted, {retained} held, {} states kept",
            encoder.kept()
        );
        // The input schedule's own few bytes aside, the two agree within a fiftieth.
        assert!(
            (counted - retained).abs() <= retained / 50,
            "{counted} bytes counted, {retained} held"
        );
    }
}
