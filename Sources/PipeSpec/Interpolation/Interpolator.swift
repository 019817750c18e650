/// Replaces `${name}` in a scalar with the run's parameter of that name, else the environment variable.
///
/// One pass over the text: what a substitution inserts is never scanned again, so a parameter whose value holds
/// `${…}` stays as it is. `$${` writes a literal `${`.
///
/// In a shell command (`SettingSchema.isShellCommand`) the value is never inserted: `${name}` becomes
/// `"$PIPE_PARAM_name"`, a reference to an environment variable the command gets, and only where the shell reads
/// that as one word (`ShellReferencePosition`).
final class Interpolator {
    /// Declared parameters and their values; `nil` for a parameter that has no value (only while validating).
    let parameters: [String: String?]
    let environment: [String: String]
    /// Names that were referenced, to warn about parameters nobody uses.
    private(set) var used: Set<String> = []
    /// Environment variables that shell commands referred to since `takeShellEnvironment()` was last called, by the
    /// variable the command sees: name and value.
    private var shellEnvironment: [String: (name: String, value: String)] = [:]

    init(parameters: [String: String?], environment: [String: String]) {
        self.parameters = parameters
        self.environment = environment
    }

    /// The result of interpolating one scalar.
    struct Result {
        var text: String
        /// `false` when a variable had no value, so the text still holds a `${…}` and must not be type-checked.
        var isComplete: Bool
        /// Whether the scalar held any `${…}` at all.
        var didInterpolate: Bool
    }

    /// The environment variable a shell command reads `${name}` from: `only-testing` → `PIPE_PARAM_only_testing`.
    static func shellVariable(for name: String) -> String {
        "PIPE_PARAM_" + name.replacingOccurrences(of: "-", with: "_")
    }

    /// The environment variables shell commands referred to since the last call (variable → value), and forgets
    /// them: a layer's, when called after its settings are read.
    func takeShellEnvironment() -> [String: String] {
        defer { shellEnvironment = [:] }
        return shellEnvironment.mapValues(\.value)
    }

    /// A name as parameters and environment variables are written: `scheme`, `SIM_UDID`, `only-testing`.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
        }
    }

    /// Interpolates `text`, reporting unknown or malformed variables at their own position in the file.
    ///
    /// - Parameter marks: where each `${` of the scalar is in the source (see `SourceText.interpolationMarks`);
    ///   `fallback` is used when they cannot be matched.
    /// - Parameter shell: whether `text` is a shell command, whose references are checked and never filled in.
    func interpolate(
        _ text: String, marks: [SourceMark], fallback: SourceMark, path: SpecKeyPath, problems: ProblemCollector,
        shell: Bool = false
    ) -> Result {
        let scalars = Array(text.unicodeScalars)
        if shell { noteShellUses(text) }
        guard scalars.contains("$") else { return Result(text: text, isComplete: true, didInterpolate: false) }
        let positions = shell ? ShellReferencePosition.positions(in: text) : []
        var output = String.UnicodeScalarView()
        var isComplete = true
        var didInterpolate = false
        var occurrence = 0
        var index = 0
        func at(_ offset: Int) -> Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }
        while index < scalars.count {
            if scalars[index] == "$", at(index + 1) == "$", at(index + 2) == "{" {
                output.append(contentsOf: "${".unicodeScalars)
                index += 3
                continue
            }
            guard scalars[index] == "$", at(index + 1) == "{" else {
                output.append(scalars[index])
                index += 1
                continue
            }
            didInterpolate = true
            let mark = occurrence < marks.count ? marks[occurrence] : fallback
            occurrence += 1
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                problems.error(
                    path, at: mark, "'${' is never closed; write '${name}', or '$${' for a literal '${'")
                output.append(contentsOf: scalars[index...])
                return Result(text: String(output), isComplete: false, didInterpolate: true)
            }
            var name = ""
            name.unicodeScalars.append(contentsOf: scalars[(index + 2)..<close])
            index = close + 1
            if shell {
                let position = occurrence <= positions.count ? positions[occurrence - 1] : .word
                if let reference = shellReference(
                    for: name, position: position, at: mark, path: path, problems: problems)
                {
                    output.append(contentsOf: reference.unicodeScalars)
                } else {
                    output.append(contentsOf: "${\(name)}".unicodeScalars)
                    isComplete = false
                }
            } else if let value = substitution(for: name, at: mark, path: path, problems: problems) {
                output.append(contentsOf: value.unicodeScalars)
            } else {
                output.append(contentsOf: "${\(name)}".unicodeScalars)
                isComplete = false
            }
        }
        return Result(text: String(output), isComplete: isComplete, didInterpolate: didInterpolate)
    }

    /// `"$PIPE_PARAM_name"` for `${name}` in a shell command, or `nil` (reported) where it cannot stand, names
    /// nothing, or names an environment variable whose shell variable is another name's.
    private func shellReference(
        for name: String, position: ShellReferencePosition, at mark: SourceMark, path: SpecKeyPath,
        problems: ProblemCollector
    ) -> String? {
        guard Self.isValidName(name) else {
            _ = substitution(for: name, at: mark, path: path, problems: problems)
            return nil
        }
        if let refusal = position.refusal(name) {
            if parameters[name] != nil { used.insert(name) }
            problems.error(path, at: mark, refusal)
            return nil
        }
        let variable = Self.shellVariable(for: name)
        if parameters[name] != nil {
            used.insert(name)
            return "\"$\(variable)\""
        }
        guard let value = substitution(for: name, at: mark, path: path, problems: problems) else { return nil }
        let taken =
            parameters.keys.first { $0 != name && Self.shellVariable(for: $0) == variable }
            ?? shellEnvironment[variable].map(\.name).flatMap { $0 == name ? nil : $0 }
        if let taken {
            problems.error(
                path, at: mark,
                "'${\(name)}' and '${\(taken)}' would both be the shell variable \(variable); rename one (a "
                    + "parameter) or set the value under the other name")
            return nil
        }
        shellEnvironment[variable] = (name, value)
        return "\"$\(variable)\""
    }

    /// A shell command that names `$PIPE_PARAM_x` itself uses the parameter `x` (left unquoted on purpose, to be
    /// split into words).
    private func noteShellUses(_ text: String) {
        guard text.contains("PIPE_PARAM_") else { return }
        for name in parameters.keys where Self.names(Self.shellVariable(for: name), in: text) { used.insert(name) }
    }

    /// Whether `text` holds `variable` as a whole name (`PIPE_PARAM_a` is not in `$PIPE_PARAM_ab`).
    private static func names(_ variable: String, in text: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: variable) {
            let next = rest[found.upperBound...].unicodeScalars.first
            if let next, next == "_" || (next.isASCII && (next.properties.isAlphabetic || ("0"..."9").contains(next))) {
                rest = rest[found.upperBound...]
            } else {
                return true
            }
        }
        return false
    }

    private func substitution(
        for name: String, at mark: SourceMark, path: SpecKeyPath, problems: ProblemCollector
    ) -> String? {
        guard Self.isValidName(name) else {
            problems.error(
                path, at: mark,
                "'${\(name)}' is not a variable name: use letters, digits, '_' and '-', starting with a letter or "
                    + "'_' (write '$${' for a literal '${')")
            return nil
        }
        if let declared = parameters[name] {
            used.insert(name)
            // A declared parameter without a value was already reported where it is declared.
            return declared
        }
        if let value = environment[name] { return value }
        var message = "'${\(name)}' is neither a declared parameter nor an environment variable"
        if let nearest = EditDistanceSuggestion.nearest(to: name, among: Array(parameters.keys)) {
            message += "; did you mean '${\(nearest)}'?"
        } else {
            message += "; declare it under 'parameters:' or set it in the environment (write '$${' for a literal '${')"
        }
        problems.error(path, at: mark, message)
        return nil
    }
}
