//! The many-client server bench spreads the clients' encodes over threads: each client's
//! frames must be the same bytes as on one thread, or the wall time would measure other work.

use ackwire_bench::scenes::SceneKind;
use ackwire_bench::server::run_clients;

#[test]
fn the_clients_frames_are_the_same_bytes_on_one_thread_and_on_two() {
    for kind in [SceneKind::Cube, SceneKind::Arena] {
        let one = run_clients(kind, 6, 1, 1, 7).unwrap();
        let two = run_clients(kind, 6, 1, 2, 7).unwrap();
        assert_eq!(one.digests, two.digests, "{kind:?}");
        assert_eq!(one.row.bytes, two.row.bytes, "{kind:?}");
        assert_eq!(one.row.memory_per_client, two.row.memory_per_client);
        // Each client its own link: its own losses and delays, so its own frames.
        let mut distinct = one.digests.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 6, "{kind:?}: {:?}", one.digests);
        assert!(one.row.bytes > 0.0 && one.row.memory_per_client > 0.0);
        // bitcode's full snapshot goes to every client: six times its size a tick.
        let alone = run_clients(kind, 1, 1, 1, 7).unwrap();
        assert_eq!(one.row.bitcode_bytes, 6.0 * alone.row.bitcode_bytes);
        assert_eq!(alone.digests[0], one.digests[0], "client 0 is client 0");
    }
}
