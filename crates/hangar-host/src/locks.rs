//! Taking a lock whatever an earlier holder did. A thread that panics while
//! holding a `std::sync` lock poisons it; this crate's rule is that the next
//! taker gets the guard anyway (`PoisonError::into_inner`) and carries on
//! with the data as the panicking thread left it, rather than panicking in
//! turn and taking the host down with it.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Lock `mutex`, poisoned or not.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Read-lock `lock`, poisoned or not.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Write-lock `lock`, poisoned or not.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, RwLock};

    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panicking_holder_is_still_taken() {
        let mutex = Arc::new(Mutex::new(1));
        let rw = Arc::new(RwLock::new(1));
        let (m, r) = (mutex.clone(), rw.clone());
        let panicked = std::thread::spawn(move || {
            let _m = m.lock();
            let _r = r.write();
            panic!("a holder panics");
        })
        .join();
        assert!(panicked.is_err() && mutex.is_poisoned() && rw.is_poisoned());
        *lock(&mutex) += 1;
        *write(&rw) += 1;
        assert_eq!((*lock(&mutex), *read(&rw)), (2, 2));
    }
}
