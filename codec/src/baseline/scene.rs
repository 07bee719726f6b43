//! The world a connection replicates: entities by slot and generation, with the reference
//! schema's components (Transform, Velocity, Vitality, Team).

use crate::protocol::{ComponentMask, Team, Transform, Velocity, Vitality};
use crate::rt::{Bit, BitWriter};
use crate::EncodeError;
use std::collections::BTreeMap;

/// Component types of the schema, in schema order (the mask's bit order).
pub const COMPONENT_TYPES: usize = 4;

/// An entity: a slot and the occupant's generation. Ordered by slot, then generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct EntityId {
    /// The slot (24 bits on the wire).
    pub slot: u32,
    /// The occupant's generation.
    pub generation: u8,
}

/// One component's value.
#[derive(Debug, Clone, PartialEq)]
pub enum ComponentValue {
    /// Position and heading (type 0).
    Transform(Transform),
    /// Velocity (type 1).
    Velocity(Velocity),
    /// Hit points (type 2).
    Health(Vitality),
    /// Team (type 3).
    Team(Team),
}

impl ComponentValue {
    /// The component's index in the schema.
    pub fn index(&self) -> usize {
        match self {
            ComponentValue::Transform(_) => 0,
            ComponentValue::Velocity(_) => 1,
            ComponentValue::Health(_) => 2,
            ComponentValue::Team(_) => 3,
        }
    }

    /// The bit of an entry's mask that says the component is carried (bit [`Self::index`]).
    pub fn mask_bit(&self) -> Bit<ComponentMask> {
        match self {
            ComponentValue::Transform(_) => ComponentMask::TRANSFORM,
            ComponentValue::Velocity(_) => ComponentMask::VELOCITY,
            ComponentValue::Health(_) => ComponentMask::HEALTH,
            ComponentValue::Team(_) => ComponentMask::TEAM,
        }
    }

    /// Its encoded bits, padded to a byte: what "differ from what the connection confirmed"
    /// compares.
    pub fn bits(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = BitWriter::new();
        match self {
            ComponentValue::Transform(v) => v.write_bits(&mut w)?,
            ComponentValue::Velocity(v) => v.write_bits(&mut w)?,
            ComponentValue::Health(v) => v.write_bits(&mut w)?,
            ComponentValue::Team(v) => v.write_bits(&mut w)?,
        }
        let mut out = Vec::new();
        w.finish(&mut out);
        Ok(out)
    }

    /// Bits it takes in a snapshot body.
    pub fn bit_len(&self) -> usize {
        match self {
            ComponentValue::Transform(v) => v.bit_len(),
            ComponentValue::Velocity(v) => v.bit_len(),
            ComponentValue::Health(v) => v.bit_len(),
            ComponentValue::Team(v) => v.bit_len(),
        }
    }
}

/// One live entity of a [`Scene`].
#[derive(Debug, Clone, PartialEq)]
pub struct SceneEntity {
    /// The occupant's generation.
    pub generation: u8,
    /// The client that owns it, if any.
    pub owner: Option<u32>,
    /// Its components by schema index, each with its encoded bits.
    pub components: [Option<(ComponentValue, Vec<u8>)>; COMPONENT_TYPES],
}

/// Why the scene refused an operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    /// The slot does not fit 24 bits.
    #[error("slot {0} does not fit 24 bits")]
    SlotTooLarge(u32),
    /// No entity lives in the slot.
    #[error("slot {0} is empty")]
    Empty(u32),
    /// The value does not encode (out of its field's range).
    #[error("the component does not encode: {0}")]
    Encode(#[from] EncodeError),
}

/// The world: at most one live occupant per slot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    entities: BTreeMap<u32, SceneEntity>,
}

impl Scene {
    /// An empty world.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts a new occupant in `slot` (replacing any), with no components.
    pub fn spawn(&mut self, entity: EntityId, owner: Option<u32>) -> Result<(), SceneError> {
        if entity.slot >= 1 << 24 {
            return Err(SceneError::SlotTooLarge(entity.slot));
        }
        self.entities.insert(
            entity.slot,
            SceneEntity {
                generation: entity.generation,
                owner,
                components: Default::default(),
            },
        );
        Ok(())
    }

    /// Removes the occupant of `slot`.
    pub fn despawn(&mut self, slot: u32) -> Option<SceneEntity> {
        self.entities.remove(&slot)
    }

    /// Sets a component of the occupant of `slot`.
    pub fn set(&mut self, slot: u32, value: ComponentValue) -> Result<(), SceneError> {
        let bits = value.bits()?;
        let e = self
            .entities
            .get_mut(&slot)
            .ok_or(SceneError::Empty(slot))?;
        let i = value.index();
        e.components[i] = Some((value, bits));
        Ok(())
    }

    /// Whether `entity` (that slot, that generation) is alive.
    pub fn alive(&self, entity: EntityId) -> bool {
        self.entities
            .get(&entity.slot)
            .is_some_and(|e| e.generation == entity.generation)
    }

    /// The occupant of `slot`.
    pub fn get(&self, slot: u32) -> Option<&SceneEntity> {
        self.entities.get(&slot)
    }

    /// The live entities, ascending by slot.
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, &SceneEntity)> {
        self.entities.iter().map(|(slot, e)| {
            (
                EntityId {
                    slot: *slot,
                    generation: e.generation,
                },
                e,
            )
        })
    }

    /// How many entities live.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether none lives.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}
