import Metrics
import PostgresStore

/// The worker's metrics, through swift-metrics: whatever backend the
/// program bootstraps (Prometheus for `hotels worker --metrics-port`)
/// receives them, and with none they cost nothing.
///
/// | metric | what |
/// |---|---|
/// | `hotelkit_jobs_claimed_total{kind}` | jobs claimed |
/// | `hotelkit_jobs_completed_total{kind}`, `…_retried_total`, `…_dead_total`, `…_abandoned_total` | how runs ended |
/// | `hotelkit_job_claim_seconds` | how long a claim statement took |
/// | `hotelkit_lease_renewals_total`, `hotelkit_heartbeat_failures_total` | heartbeats |
/// | `hotelkit_jobs_rescued_total`, `hotelkit_jobs_released_total` | leases that expired, jobs given back |
/// | `hotelkit_pages_fetched_total`, `hotelkit_hotels_fetched_total`, `hotelkit_logos_processed_total` | the work itself |
/// | `hotelkit_completion_retries_total` | completions written again after a failure |
/// | `hotelkit_leader` | 1 while this worker leads the maintenance |
/// | `hotelkit_scheduled_runs_total` | runs enqueued by schedules |
/// | `hotelkit_lists_stale`, `hotelkit_oldest_available_seconds` | gauges of the fleet's freshness: scheduled lists not refreshed for two periods, the oldest wait |
public enum WorkerMetrics {
    static func record(_ event: WorkerEvent) {
        switch event {
        case .claimed(let kind, let count, let seconds):
            Counter(label: "hotelkit_jobs_claimed_total", dimensions: [("kind", kind.rawValue)]).increment(by: count)
            Timer(label: "hotelkit_job_claim_seconds").recordSeconds(seconds)
        case .claimFailed:
            Counter(label: "hotelkit_claim_failures_total").increment()
        case .completed(let kind):
            Counter(label: "hotelkit_jobs_completed_total", dimensions: [("kind", kind.rawValue)]).increment()
        case .retried(let kind):
            Counter(label: "hotelkit_jobs_retried_total", dimensions: [("kind", kind.rawValue)]).increment()
        case .dead(let kind):
            Counter(label: "hotelkit_jobs_dead_total", dimensions: [("kind", kind.rawValue)]).increment()
        case .abandoned(let kind):
            Counter(label: "hotelkit_jobs_abandoned_total", dimensions: [("kind", kind.rawValue)]).increment()
        case .stopping:
            break  // for the log; what the stop gives back is counted as released
        case .released(let count):
            Counter(label: "hotelkit_jobs_released_total").increment(by: count)
        case .leasesRenewed(let count):
            Counter(label: "hotelkit_lease_renewals_total").increment(by: count)
        case .heartbeatFailed:
            Counter(label: "hotelkit_heartbeat_failures_total").increment()
        case .rescued(let count):
            Counter(label: "hotelkit_jobs_rescued_total").increment(by: count)
        case .completionRetried:
            Counter(label: "hotelkit_completion_retries_total").increment()
        case .leader(let leads):
            Gauge(label: "hotelkit_leader").record(leads ? 1 : 0)
        case .scheduled(let count):
            Counter(label: "hotelkit_scheduled_runs_total").increment(by: count)
        case .freshness(let stale, let oldest):
            Gauge(label: "hotelkit_lists_stale").record(stale)
            Gauge(label: "hotelkit_oldest_available_seconds").record(oldest)
        }
    }

    static func pageFetched(hotels: Int) {
        Counter(label: "hotelkit_pages_fetched_total").increment()
        Counter(label: "hotelkit_hotels_fetched_total").increment(by: hotels)
    }

    static func logosProcessed(_ count: Int) {
        Counter(label: "hotelkit_logos_processed_total").increment(by: count)
    }
}
