//! How many worker threads a run may start: the logical cores this process may use and the
//! bound on oversubscription, the same for the command line and Python.

/// Threads per logical core a run may start without being told to oversubscribe: beyond the
/// cores threads only take turns (4,000 threads on 2 cores ran 170 times slower than 2), and a
/// mistyped count (`-j 1000`, `threads=10**6`) would otherwise start that many.
pub const MAX_PER_CORE: usize = 4;

/// The number of logical cores this process may use, asked of the system once: on Linux each
/// asking reads the process's cgroup files (a few dozen microseconds), and a command asks for
/// its defaults, its checks and its pool.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The most threads a run may start without oversubscribing: [`MAX_PER_CORE`] × [`cores`].
pub fn bound() -> usize {
    cores() * MAX_PER_CORE
}
