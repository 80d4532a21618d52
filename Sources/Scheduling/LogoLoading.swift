import Imaging

/// What a row's logo operation produced.
public enum LogoResult: Sendable {
    /// `downloadedBytes` is set for the one row that paid for a network
    /// transfer; rows that shared it, or were served from a cache, have nil.
    case image(RGBAImage, downloadedBytes: Int?)
    case failed(String)
    case cancelled
}

/// Where a logo operation is, for traces and timelines.
public enum LogoStage: Sendable {
    case downloading
    case decoding
}

/// Where the window loader gets logos: the `Logos` library's
/// `LogoPipeline`, or a fake in tests.
public protocol LogoLoading: Sendable {
    /// The logo for `url` if it is in memory: shown with no work at all.
    func cachedImage(for url: String) -> RGBAImage?

    /// An operation that loads `url`'s logo when a ``WorkQueue`` runs it.
    /// `onStage` is told, on any thread, when it starts downloading and when
    /// it starts decoding; `completion` gets the result on the queue's
    /// completion queue. Cancelling it cancels its transfer.
    func operation(
        name: String, url: String, priority: WorkPriority,
        onStage: @escaping @Sendable (LogoStage) -> Void,
        completion: @escaping @Sendable (LogoResult) -> Void
    ) -> WorkOperation
}
