import ServiceLifecycle

/// In a `ServiceGroup`, the runtime is the service that closes last.
///
/// ``ProcessServices`` puts it ahead of the services that use it, and a group
/// shuts its services down in reverse order, each after the one behind it has
/// returned. So the runtime closes (sessions logged out, a shared store's pool
/// closed) only once a worker has given back its unfinished jobs and a server
/// has answered its last request, whichever service ended the group.
///
/// The pool itself starts when the store opens, not in the group: a store is
/// read and migrated before any service runs, and one-shot commands have no group.
extension HotelRuntime: Service {
    /// Waits for the group's graceful shutdown (or cancellation), then closes the runtime.
    public func run() async {
        try? await gracefulShutdown()
        await close()
    }
}
