//! The reference state's groups as datagram v2 components (DG-6), generated from `state Reference`
//! (`ReferenceComponent`): each group's full form as kind 6 writes it, its type the group's
//! index. A server's entities travel through a `Subscription` and a `ReplicaTable`, every frame
//! through its bytes and a third of the datagrams lost until the network heals; the client's
//! replica, decoded back into typed components, then equals the server's entities.

use ackwire_codec::datagram::{
    ComponentChange, ReferenceDatagram, ReplicaTable, StreamFrame, Subscription,
    SubscriptionConfig, WorldOp,
};
use ackwire_codec::protocol::{
    Component, Health, Orientation, PoseFull, ReferenceComponent, Vehicle,
};
use ackwire_codec::rt::{ErrorKind, SmallestThree};
use ackwire_codec::Frame;
use std::collections::BTreeMap;

/// A frame through its bytes, as the other side reads it.
fn wire<F: Frame>(frame: &F) -> F {
    F::decode(&frame.to_bytes().unwrap()).unwrap()
}

/// The typed components of entity `id` at `tick`: a pose every entity has, health that changes,
/// a vehicle for even ids and an orientation for ids divisible by three.
fn entity(id: u64, tick: u64) -> Vec<ReferenceComponent> {
    let mut out = vec![
        ReferenceComponent::Pose(PoseFull {
            x: tick as f32 * 0.5,
            y: id as f32,
            z: -2.0,
            // Whole steps of 360/65536 degrees, which the quantization keeps exactly.
            yaw: (id * 1000 + tick) as f64 * (360.0 / 65536.0),
        }),
        ReferenceComponent::Health(Health {
            hp: 100u8.saturating_sub(tick as u8),
            armor: id as u8,
        }),
    ];
    if id.is_multiple_of(2) {
        out.push(ReferenceComponent::Vehicle(Vehicle {
            vehicle: id as u16 + 1,
            seat: (tick % 4) as u8,
        }));
    }
    if id.is_multiple_of(3) {
        out.push(ReferenceComponent::Orient(Orientation {
            q: SmallestThree {
                largest: (tick % 4) as u8,
                rest: [-5, id as i16, 7],
            },
        }));
    }
    out
}

/// The components as the subscription takes them: (type, bytes).
fn encoded(components: &[ReferenceComponent]) -> Vec<(u8, Vec<u8>)> {
    components
        .iter()
        .map(|c| {
            let change: Component = c.to_component().unwrap();
            (change.r#type, change.data.unwrap())
        })
        .collect()
}

/// A replica's components decoded back, by type.
fn decoded(components: &BTreeMap<u8, Vec<u8>>) -> Vec<ReferenceComponent> {
    components
        .iter()
        .filter_map(|(t, data)| {
            ReferenceComponent::from_component(&Component::new(*t, Some(data.clone()))).unwrap()
        })
        .collect()
}

#[test]
fn a_replica_of_typed_components_equals_the_servers_entities() {
    let mut server = Subscription::new(SubscriptionConfig::default());
    let mut client = ReplicaTable::new();
    let ids = [0u64, 1, 2, 3, 4, 5];
    let mut sent = 0u32;
    for tick in 1..=40u64 {
        let mut ops = Vec::new();
        for &id in &ids {
            let components = encoded(&entity(id, tick));
            if tick == 1 {
                ops.push(WorldOp::Spawn {
                    id,
                    position: [id as f64, 0.0, 0.0],
                    components,
                });
                continue;
            }
            ops.push(WorldOp::Move {
                id,
                position: [id as f64, tick as f64 * 0.25, 0.0],
            });
            for (r#type, data) in components {
                ops.push(WorldOp::SetComponent { id, r#type, data });
            }
        }
        let out = server.tick(tick, tick, &ops).unwrap();
        for frame in &out.stream {
            let bytes = frame.to_bytes().unwrap();
            let back = StreamFrame::<ReferenceDatagram>::decode(frame.name(), &bytes)
                .unwrap()
                .unwrap();
            client.apply_stream(&back);
        }
        for d in &out.datagrams {
            sent += 1;
            if tick < 30 && sent.is_multiple_of(3) {
                continue;
            }
            client.receive(wire(d));
        }
        for ack in client.take_acks() {
            server.on_ack(&wire(&ack));
        }
    }
    // The state check: every entity the client holds decodes to the server's, group by group.
    assert_eq!(client.entities().len(), ids.len());
    for &id in &ids {
        let replica = &client.entities()[&id];
        assert_eq!(decoded(&replica.components), entity(id, 40), "entity {id}");
    }
}

#[test]
fn a_payload_that_does_not_decode_exactly_is_refused_where_it_fails() {
    let health: Component = ReferenceComponent::Health(Health { hp: 9, armor: 1 })
        .to_component()
        .unwrap();
    let mut long = health.data.clone().unwrap();
    long.push(0);
    let e = ReferenceComponent::from_component(&Component::new(1, Some(long))).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::TrailingBytes, 2));
    assert_eq!(e.path_string(), "health");
    let e = ReferenceComponent::from_component(&Component::new(0, Some(vec![1, 2]))).unwrap_err();
    assert_eq!(e.path_string().split('.').next(), Some("pose"));
    // DG-6: a type the state does not declare is skipped, as is a removal.
    assert_eq!(
        ReferenceComponent::from_component(&Component::new(9, Some(vec![1, 2, 3]))).unwrap(),
        None
    );
    assert_eq!(
        ReferenceComponent::from_component(&Component::new(1, None)).unwrap(),
        None
    );
    assert_eq!(
        ReferenceComponent::from_component(&health).unwrap(),
        Some(ReferenceComponent::Health(Health { hp: 9, armor: 1 }))
    );
}
