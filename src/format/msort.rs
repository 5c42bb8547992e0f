//! The sort Slurm's clients get from `list_sort` → glibc `qsort`, which is a top-down merge
//! sort (`msort_with_tmp`). Reproducing it exactly matters: several of Slurm's comparators
//! are not consistent orders (squeue's start-time sort returns 1 whenever the left job has
//! no start time), and the output order follows the merge sort's exact steps.

use std::cmp::Ordering;

/// Sorts `items` in place with a C-style comparator (`<= 0` keeps the left element first),
/// using glibc's merge order, so equal elements keep their relative order.
pub fn sort_by<T>(items: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> i32) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let mut order: Vec<usize> = (0..n).collect();
    let mut tmp = Vec::with_capacity(n);
    merge_sort(&mut order, &mut tmp, &mut |a, b| cmp(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Converts a Rust ordering to the C convention.
pub fn c_cmp(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn merge_sort(b: &mut [usize], tmp: &mut Vec<usize>, cmp: &mut impl FnMut(usize, usize) -> i32) {
    let n = b.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    merge_sort(&mut b[..n1], tmp, cmp);
    merge_sort(&mut b[n1..], tmp, cmp);
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(b[i], b[j]) <= 0 {
            tmp.push(b[i]);
            i += 1;
        } else {
            tmp.push(b[j]);
            j += 1;
        }
    }
    tmp.extend_from_slice(&b[i..n1]);
    tmp.extend_from_slice(&b[j..n]);
    b.copy_from_slice(tmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_is_stable() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        sort_by(&mut v, |x, y| c_cmp(x.0.cmp(&y.0)));
        assert_eq!(v, vec![(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
    }

    #[test]
    fn always_greater_comparator_reverses_like_glibc() {
        // squeue's start-time sort returns 1 for two jobs without start times: glibc's
        // merge then takes the right half first at every level, reversing the list.
        let mut v = vec![1, 2, 3, 4, 5, 6, 7];
        sort_by(&mut v, |_, _| 1);
        assert_eq!(v, vec![7, 6, 5, 4, 3, 2, 1]);
    }
}
