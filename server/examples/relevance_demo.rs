//! Relevance demo (SRV-5 to SRV-9): one viewer walking through a field of drifting entities.
//!
//! Each tick the server rebuilds a [`SpatialGrid`], asks it for the viewer's candidates (a
//! cell-granular superset), keeps those the [`TierBoundary`] admits (so an entity loitering on
//! the radius does not flap), diffs the new [`VisibilitySet`] against last tick's for the
//! spawn/despawn stream, and sends the set's digest. The "client" applies entered/left to its
//! own [`SetDigest`] and compares: the liveness check a delta stream needs.
//!
//! Deterministic: positions come from a fixed formula, no clock and no random source.
//!
//! Run with `cargo run -p ackwire-server --example relevance_demo`.

use ackwire_server::delta::Agreement;
use ackwire_server::relevance::{
    GridQuantizer, SetDigest, SpatialGrid, TierBoundary, VisibilitySet,
};

const ENTITIES: u32 = 400;
const WORLD: f32 = 1000.0;
const RADIUS_IN: f32 = 120.0;
const RADIUS_OUT: f32 = 135.0;

/// Where entity `id` is at `tick`: a slow circle around a fixed home.
fn position(id: u32, tick: u32) -> (f32, f32) {
    let home_x = (id.wrapping_mul(7919) % 1000) as f32;
    let home_y = (id.wrapping_mul(104_729) % 1000) as f32;
    let phase = id as f32 * 0.37 + tick as f32 * 0.05;
    (home_x + 20.0 * phase.cos(), home_y + 20.0 * phase.sin())
}

fn main() {
    let quantizer = GridQuantizer::new((0.0, 0.0), RADIUS_OUT);
    let mut grid = SpatialGrid::new(quantizer);
    let tier = TierBoundary::new(RADIUS_IN, RADIUS_OUT);
    let mut previous = VisibilitySet::with_capacity(ENTITIES - 1);
    let mut client = SetDigest::new();
    let (mut candidates, mut entered, mut left) = (Vec::new(), Vec::new(), Vec::new());

    println!("tick  viewer        candidates  visible  entered  left  digest agrees");
    for tick in 0..60_u32 {
        let viewer = (100.0 + tick as f32 * 12.0, WORLD / 2.0);

        grid.clear();
        for id in 0..ENTITIES {
            let (x, y) = position(id, tick);
            grid.insert(id, x, y);
        }

        candidates.clear();
        grid.query_radius(viewer.0, viewer.1, RADIUS_OUT, &mut candidates);
        let mut visible = VisibilitySet::with_capacity(ENTITIES - 1);
        for &id in &candidates {
            let (x, y) = position(id, tick);
            let distance = (x - viewer.0).hypot(y - viewer.1);
            if tier.admits(previous.contains(id), distance) {
                visible.insert(id);
            }
        }

        entered.clear();
        left.clear();
        visible.diff(&previous, &mut entered, &mut left);
        // The client's half: apply the stream to its own digest.
        entered.iter().for_each(|&id| client.insert(u64::from(id)));
        left.iter().for_each(|&id| client.remove(u64::from(id)));
        let agrees = Agreement::compare(visible.digest(), client.digest()) == Agreement::Agrees;

        if tick % 5 == 0 {
            println!(
                "{tick:>4}  ({:>6.1}, {:>5.1})  {:>10}  {:>7}  {:>7}  {:>4}  {agrees}",
                viewer.0,
                viewer.1,
                candidates.len(),
                visible.count(),
                entered.len(),
                left.len(),
            );
        }
        assert!(agrees, "the client's digest drifted at tick {tick}");
        previous = visible;
    }
}
