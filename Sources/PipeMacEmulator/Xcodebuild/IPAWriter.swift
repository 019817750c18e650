import CArchive
import Foundation

/// Writes an `.ipa`: a zip holding `Payload/<App>.app/…` (folders first, then every regular file with its
/// permissions), in-process through libarchive. Written next to the target and renamed into place, so a reader
/// never sees half an `.ipa`.
enum IPAWriter {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func write(app bundle: URL, to ipa: URL) throws {
        let appName = bundle.lastPathComponent
        let files = try BundleFiles.list(bundle)
        var folders: [String] = ["Payload/", "Payload/\(appName)/"]
        var seen = Set(folders)
        for file in files {
            var parts = file.split(separator: "/").dropLast()
            var inner: [String] = []
            while !parts.isEmpty {
                inner.insert("Payload/\(appName)/" + parts.joined(separator: "/") + "/", at: 0)
                parts = parts.dropLast()
            }
            for folder in inner where seen.insert(folder).inserted { folders.append(folder) }
        }
        let partial = ipa.deletingLastPathComponent().appendingPathComponent(".\(ipa.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: partial)
        guard let archive = archive_write_new() else { throw Failure(description: "libarchive could not start") }
        defer { archive_write_free(archive) }
        archive_write_set_format_zip(archive)
        guard archive_write_open_filename(archive, partial.path) == ARCHIVE_OK else { throw failure(archive) }
        let now = time(nil)
        for folder in folders.sorted() {
            try header(archive, name: folder, type: pipe_archive_type_folder, permissions: 0o755, size: 0, time: now)
        }
        for file in files {
            let url = bundle.appendingPathComponent(file)
            let data = try Data(contentsOf: url)
            let mode =
                (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?
                .uint32Value ?? 0o644
            try header(
                archive, name: "Payload/\(appName)/\(file)", type: pipe_archive_type_file, permissions: mode & 0o777,
                size: data.count, time: now)
            let written = data.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
            guard written == data.count else { throw failure(archive) }
        }
        guard archive_write_close(archive) == ARCHIVE_OK else { throw failure(archive) }
        if FileManager.default.fileExists(atPath: ipa.path) { try FileManager.default.removeItem(at: ipa) }
        try FileManager.default.moveItem(at: partial, to: ipa)
    }

    private static func header(
        _ archive: OpaquePointer, name: String, type: UInt32, permissions: UInt32, size: Int, time: time_t
    ) throws {
        guard let entry = archive_entry_new() else { throw Failure(description: "libarchive: no entry") }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname(entry, name)
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, mode_t(permissions))
        archive_entry_set_size(entry, Int64(size))
        archive_entry_set_mtime(entry, time, 0)
        guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw failure(archive) }
    }

    private static func failure(_ archive: OpaquePointer) -> Failure {
        Failure(description: archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed")
    }
}
