//! [`GridQuantizer`] and [`SpatialGrid`]: continuous positions onto a uniform integer grid,
//! and entity ids bucketed by cell for range queries.

use std::collections::BTreeMap;

use super::morton;

/// Maps continuous world coordinates onto a uniform integer grid (SRV-6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridQuantizer {
    origin: (f32, f32),
    cell_size: f32,
}

impl GridQuantizer {
    /// A grid whose cell `(0, 0)` starts at `origin`, with square cells `cell_size` wide.
    ///
    /// `origin` is the world's minimum corner: a point at or below it falls in cell 0 (SRV-6). A
    /// `cell_size` near a viewer's relevance radius keeps a view a few cells wide.
    ///
    /// # Panics
    ///
    /// SRV-6: a `cell_size` that is not positive (zero, negative or NaN) is refused. An infinite
    /// `cell_size` is positive and puts the whole world in cell `(0, 0)`.
    #[must_use]
    pub fn new(origin: (f32, f32), cell_size: f32) -> Self {
        assert!(
            cell_size > 0.0,
            "GridQuantizer::new: cell_size must be positive, got {cell_size}"
        );
        Self { origin, cell_size }
    }

    /// The cell holding `(x, y)`.
    ///
    /// Coordinates at or below the origin clamp to 0 and beyond the last cell to `u32::MAX`;
    /// a NaN coordinate maps to 0.
    #[must_use]
    pub fn cell(&self, x: f32, y: f32) -> (u32, u32) {
        (
            Self::axis(x, self.origin.0, self.cell_size),
            Self::axis(y, self.origin.1, self.cell_size),
        )
    }

    fn axis(value: f32, origin: f32, cell_size: f32) -> u32 {
        // `as` saturates: negative and NaN become 0, too large becomes u32::MAX.
        ((value - origin) / cell_size).floor() as u32
    }

    /// The Morton key ([`morton::encode_2d`]) of the cell holding `(x, y)`.
    #[must_use]
    pub fn key(&self, x: f32, y: f32) -> u64 {
        let (cx, cy) = self.cell(x, y);
        morton::encode_2d(cx, cy)
    }

    /// How many cells beyond its own a viewer with this `radius` can reach on each side:
    /// `ceil(radius / cell_size)`.
    ///
    /// SRV-6: rounded up, which makes this a safe bound wherever the viewer stands inside its cell
    /// (a radius of exactly one cell reaches one neighbour, a radius a little over reaches two). A
    /// radius that is not positive (or NaN) reaches 0 cells; a huge one saturates at `u32::MAX`.
    #[must_use]
    pub fn cells_for_radius(&self, radius: f32) -> u32 {
        if radius > 0.0 {
            (radius / self.cell_size).ceil() as u32
        } else {
            0
        }
    }

    /// The width of one cell.
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// The world's minimum corner, where cell `(0, 0)` starts.
    #[must_use]
    pub fn origin(&self) -> (f32, f32) {
        self.origin
    }
}

/// Entity ids bucketed into grid cells for range queries (SRV-7). Rebuild each tick:
/// [`clear`](Self::clear), then [`insert`](Self::insert) every entity.
///
/// Buckets are kept in cell order, so queries are deterministic: the same inserts give the
/// same output in the same order.
#[derive(Clone, Debug)]
pub struct SpatialGrid<Id: Copy> {
    quantizer: GridQuantizer,
    buckets: BTreeMap<(u32, u32), Vec<Id>>,
}

impl<Id: Copy> SpatialGrid<Id> {
    /// An empty grid over the given quantizer.
    #[must_use]
    pub fn new(quantizer: GridQuantizer) -> Self {
        Self {
            quantizer,
            buckets: BTreeMap::new(),
        }
    }

    /// Empties every bucket but keeps the buckets and their capacity, so a grid rebuilt every
    /// tick over a similar world stops allocating.
    pub fn clear(&mut self) {
        for bucket in self.buckets.values_mut() {
            bucket.clear();
        }
    }

    /// Puts `id` in the cell holding `(x, y)`.
    pub fn insert(&mut self, id: Id, x: f32, y: f32) {
        self.buckets
            .entry(self.quantizer.cell(x, y))
            .or_default()
            .push(id);
    }

    /// Appends every id in the cells overlapping the square of half-width `radius` around
    /// `(x, y)`.
    ///
    /// SRV-7: a superset at the granularity of cells, to which the caller applies an exact distance
    /// test; `out` is not cleared, so one `Vec` can serve every query. A radius that is not
    /// positive (or NaN) queries only the cell holding `(x, y)`. However large the radius, the work
    /// is bounded by the number of buckets, never by the cells it spans.
    pub fn query_radius(&self, x: f32, y: f32, radius: f32, out: &mut Vec<Id>) {
        let radius = if radius > 0.0 { radius } else { 0.0 };
        let (x0, y0) = self.quantizer.cell(x - radius, y - radius);
        let (x1, y1) = self.quantizer.cell(x + radius, y + radius);
        let (x0, x1) = (x0.min(x1), x0.max(x1));
        let (y0, y1) = (y0.min(y1), y0.max(y1));
        let span = (u64::from(x1 - x0) + 1).saturating_mul(u64::from(y1 - y0) + 1);
        if span <= self.buckets.len() as u64 {
            for cx in x0..=x1 {
                for cy in y0..=y1 {
                    if let Some(bucket) = self.buckets.get(&(cx, cy)) {
                        out.extend_from_slice(bucket);
                    }
                }
            }
        } else {
            let inside =
                |&(cx, cy): &(u32, u32)| (x0..=x1).contains(&cx) && (y0..=y1).contains(&cy);
            for (_, bucket) in self.buckets.iter().filter(|(cell, _)| inside(cell)) {
                out.extend_from_slice(bucket);
            }
        }
    }

    /// The quantizer this grid buckets with.
    #[must_use]
    pub fn quantizer(&self) -> &GridQuantizer {
        &self.quantizer
    }

    /// How many ids are bucketed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.buckets.values().map(Vec::len).sum()
    }

    /// Whether no id is bucketed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buckets.values().all(Vec::is_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "cell_size must be positive")]
    fn quantizer_panics_if_cell_size_is_zero() {
        // SRV-6.
        let _ = GridQuantizer::new((0.0, 0.0), 0.0);
    }

    #[test]
    #[should_panic(expected = "cell_size must be positive")]
    fn quantizer_panics_if_cell_size_is_negative() {
        let _ = GridQuantizer::new((0.0, 0.0), -1.0);
    }

    #[test]
    #[should_panic(expected = "cell_size must be positive")]
    fn quantizer_panics_if_cell_size_is_nan() {
        let _ = GridQuantizer::new((0.0, 0.0), f32::NAN);
    }

    #[test]
    fn cell_is_floor_of_offset_over_cell_size() {
        let q = GridQuantizer::new((-100.0, 50.0), 10.0);
        assert_eq!(q.cell(-100.0, 50.0), (0, 0));
        assert_eq!(q.cell(-90.0, 59.9), (1, 0));
        assert_eq!(q.cell(5.0, 75.0), (10, 2));
        assert_eq!(q.cell_size(), 10.0);
    }

    #[test]
    fn points_at_or_below_the_origin_clamp_to_cell_zero() {
        // SRV-6.
        let q = GridQuantizer::new((0.0, 0.0), 10.0);
        assert_eq!(q.cell(-5.0, -1e30), (0, 0));
        assert_eq!(q.cell(f32::NAN, f32::NEG_INFINITY), (0, 0));
        assert_eq!(q.cell(f32::INFINITY, 1e30), (u32::MAX, u32::MAX));
    }

    #[test]
    fn key_is_the_morton_key_of_the_cell() {
        let q = GridQuantizer::new((0.0, 0.0), 1.0);
        assert_eq!(q.key(5.5, 3.2), morton::encode_2d(5, 3));
    }

    #[test]
    fn cells_for_radius_rounds_up() {
        // SRV-6.
        let q = GridQuantizer::new((0.0, 0.0), 10.0);
        assert_eq!(q.cells_for_radius(0.0), 0);
        assert_eq!(q.cells_for_radius(-3.0), 0);
        assert_eq!(q.cells_for_radius(f32::NAN), 0);
        assert_eq!(q.cells_for_radius(10.0), 1);
        assert_eq!(q.cells_for_radius(10.5), 2);
        assert_eq!(q.cells_for_radius(25.0), 3);
        assert_eq!(q.cells_for_radius(f32::INFINITY), u32::MAX);
    }

    fn grid() -> SpatialGrid<u32> {
        let mut grid = SpatialGrid::new(GridQuantizer::new((0.0, 0.0), 10.0));
        grid.insert(1, 5.0, 5.0); // cell (0, 0)
        grid.insert(2, 15.0, 5.0); // cell (1, 0)
        grid.insert(3, 19.9, 19.9); // cell (1, 1), outside the radius but in an overlapping cell
        grid.insert(4, 55.0, 55.0); // cell (5, 5), far away
        grid
    }

    #[test]
    fn query_radius_appends_a_cell_granular_superset() {
        // SRV-7.
        let grid = grid();
        let mut out = Vec::new();
        // The square of half-width 2 around (11, 9) spans cells (0..=1, 0..=1).
        grid.query_radius(11.0, 9.0, 2.0, &mut out);
        out.sort_unstable();
        // 3 is at distance ~13.7 from the viewer, beyond the radius: a superset.
        assert_eq!(out, [1, 2, 3]);
    }

    #[test]
    fn query_radius_does_not_clear_out() {
        // SRV-7.
        let grid = grid();
        let mut out = vec![99];
        grid.query_radius(55.0, 55.0, 1.0, &mut out);
        assert_eq!(out, [99, 4]);
    }

    #[test]
    fn query_radius_with_a_huge_radius_returns_everything_without_walking_every_cell() {
        let grid = grid();
        let mut out = Vec::new();
        grid.query_radius(0.0, 0.0, f32::INFINITY, &mut out);
        out.sort_unstable();
        assert_eq!(out, [1, 2, 3, 4]);
        out.clear();
        grid.query_radius(0.0, 0.0, 1e30, &mut out);
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn query_radius_with_no_radius_is_the_own_cell() {
        let grid = grid();
        let mut out = Vec::new();
        grid.query_radius(15.0, 5.0, -1.0, &mut out);
        assert_eq!(out, [2]);
    }

    #[test]
    fn clear_empties_buckets_and_keeps_capacity() {
        let mut grid = grid();
        let capacity = grid.buckets[&(0, 0)].capacity();
        grid.clear();
        assert!(grid.is_empty());
        assert_eq!(grid.len(), 0);
        assert_eq!(grid.buckets[&(0, 0)].capacity(), capacity);
        let mut out = Vec::new();
        grid.query_radius(5.0, 5.0, 100.0, &mut out);
        assert!(out.is_empty());
        assert_eq!(grid.quantizer().cell_size(), 10.0);
    }
}
