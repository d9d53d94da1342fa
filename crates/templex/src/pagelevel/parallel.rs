//! Training's data parallelism: rayon's threads with the `parallel` feature, one thread
//! without it. Results come back in the items' order either way, so what is trained does not
//! depend on the threads.

/// `f` of every item, in the items' order.
pub(super) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// How many threads [`map_in_order`] runs on.
pub(super) fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}
