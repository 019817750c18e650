import Foundation
import PipeCore
import PipeGit

/// The engine's `SourceCheckout` over libgit2: a per-project mirror, then the commit's files into the run's folder.
struct GitSourceCheckout: SourceCheckout {
    var cancellation: CancellationToken

    func checkout(
        _ repository: RepositorySpec, projectDirectory: URL, into folder: URL, trustedRefs: [TrustedRefPattern]
    ) throws -> CheckedOutSource {
        // No location means the project's own repository; a relative path is relative to the project folder.
        let location = repository.location.map { location -> String in
            if location.contains("://") || location.hasPrefix("/") { return location }
            return projectDirectory.appendingPathComponent(location).standardizedFileURL.path
        }
        do {
            let result = try GitCheckout.checkout(
                repository: location ?? projectDirectory.path, ref: repository.ref, into: folder,
                mirrorsFolder: projectDirectory.appendingPathComponent(".pipe/git-mirrors", isDirectory: true),
                fetchRef: repository.fetchRef, cancellation: cancellation, trustedRefs: trustedRefs)
            return CheckedOutSource(
                commit: result.commitSHA, resolvedRef: result.resolvedRef, workTree: result.workTree,
                protectedRef: result.protectedRef)
        } catch let error as GitError {
            switch error {
            case .unknownRef, .repositoryNotFound, .ambiguousRef, .notACommit, .emptyRepository, .invalidFetchRef:
                // The request names something that is not there: the person must change the ref or the URL.
                throw RequestError(error.description)
            default:
                throw error
            }
        }
    }
}
