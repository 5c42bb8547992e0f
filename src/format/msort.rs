//! The sort Slurm's clients get from `list_sort` → glibc `qsort`, which is a top-down merge
//! sort (`msort_with_tmp`). Reproducing it exactly matters: several of Slurm's comparators
//! are not consistent orders (squeue's start-time sort returns 1 whenever the left job has
//! no start time), and the output order follows the merge sort's exact steps.

use std::cmp::Ordering;

/// Sorts `items` in place with a C-style comparator (`<= 0` keeps the left element first),
/// using glibc's merge order, so equal elements keep their relative order.
pub fn sort_by<T>(items: &mut [T], mut cmp: impl FnMut(&T, &T) -> i32) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let mut order: Vec<usize> = (0..n).collect();
    let mut tmp = Vec::with_capacity(n);
    merge_sort(&mut order, &mut tmp, &mut |a, b| cmp(&items[a], &items[b]));
    permute(items, order);
}

/// [`sort_by`] with a comparator over precomputed keys (`keys[i]` belongs to `items[i]`):
/// the same merge steps, hence the same order whenever `cmp(keys[a], keys[b])` agrees with
/// the comparator over the items, but the comparisons read a small contiguous array
/// instead of chasing each item, which keeps large sorts within the cache.
pub fn sort_by_keys<T, K>(items: &mut [T], keys: &[K], mut cmp: impl FnMut(&K, &K) -> i32) {
    let n = items.len();
    if n <= 1 || keys.len() != n {
        return;
    }
    let mut order: Vec<usize> = (0..n).collect();
    let mut tmp = Vec::with_capacity(n);
    merge_sort(&mut order, &mut tmp, &mut |a, b| cmp(&keys[a], &keys[b]));
    permute(items, order);
}

/// Puts `items[order[k]]` at position `k`, in place: each cycle of the permutation is
/// rotated with swaps, so no second copy of the items is allocated.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        if order[start] == DONE {
            continue;
        }
        let mut cur = start;
        loop {
            let src = order[cur];
            order[cur] = DONE;
            if src == start {
                break;
            }
            items.swap(cur, src);
            cur = src;
        }
    }
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
    fn keyed_sort_follows_the_same_merge_steps() {
        // An inconsistent comparator (unset values always "greater") gives the same
        // order through keys as through the items.
        let items: Vec<(i64, usize)> = [0, 5, 0, 3, 9, 0, 1, 5]
            .iter()
            .enumerate()
            .map(|(i, v)| (*v, i))
            .collect();
        let odd = |a: i64, b: i64| {
            if a == 0 {
                1
            } else if b == 0 {
                -1
            } else {
                c_cmp(a.cmp(&b))
            }
        };
        let mut direct = items.clone();
        sort_by(&mut direct, |a, b| odd(a.0, b.0));
        let mut keyed = items.clone();
        let keys: Vec<i64> = keyed.iter().map(|x| x.0).collect();
        sort_by_keys(&mut keyed, &keys, |a, b| odd(*a, *b));
        assert_eq!(direct, keyed);
    }

    #[test]
    fn permutes_in_place() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        permute(&mut v, vec![3, 0, 4, 1, 2]);
        assert_eq!(v, ['d', 'a', 'e', 'b', 'c']);
        let mut w: Vec<u32> = (0..6).collect();
        permute(&mut w, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(w, [0, 1, 2, 3, 4, 5]);
    }

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
