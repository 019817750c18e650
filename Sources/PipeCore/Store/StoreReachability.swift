/// A store error that says the store could not be reached for the whole time the store retries (a PostgreSQL
/// server that is down): a run cannot go on recording what it does, so it stops its work and ends `interrupted`.
public protocol StoreReachabilityError: Error {
    var meansStoreUnreachable: Bool { get }
}
