/// Replaces `${name}` in a scalar with the run's parameter of that name, else the environment variable.
///
/// One pass over the text: what a substitution inserts is never scanned again, so a parameter whose value holds
/// `${…}` stays as it is. `$${` writes a literal `${`.
final class Interpolator {
    /// Declared parameters and their values; `nil` for a parameter that has no value (only while validating).
    let parameters: [String: String?]
    let environment: [String: String]
    /// Names that were referenced, to warn about parameters nobody uses.
    private(set) var used: Set<String> = []

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
    func interpolate(
        _ text: String, marks: [SourceMark], fallback: SourceMark, path: SpecKeyPath, problems: ProblemCollector
    ) -> Result {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains("$") else { return Result(text: text, isComplete: true, didInterpolate: false) }
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
            if let value = substitution(for: name, at: mark, path: path, problems: problems) {
                output.append(contentsOf: value.unicodeScalars)
            } else {
                output.append(contentsOf: "${\(name)}".unicodeScalars)
                isComplete = false
            }
        }
        return Result(text: String(output), isComplete: isComplete, didInterpolate: didInterpolate)
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
