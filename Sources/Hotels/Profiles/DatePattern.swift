import Foundation

/// How `{today+N:PATTERN}` and `{now:PATTERN}` write a date: Unicode's date
/// field symbols, in UTC, with the POSIX locale and the Gregorian calendar,
/// whatever the machine's settings.
///
/// | symbol | writes | example |
/// |---|---|---|
/// | `yyyy`, `yy` | the year | `2026`, `26` |
/// | `MM`, `MMM` | the month | `11`, `Nov` |
/// | `dd` | the day of the month | `27` |
/// | `EEE` | the weekday | `Fri` |
/// | `HH`, `mm`, `ss`, `SSS` | hours (00–23), minutes, seconds, milliseconds | `09`, `41`, `00`, `123` |
/// | `XXX` | the zone, always UTC | `Z` |
/// | `'T'` | text in quotes, as it is | `T` |
///
/// Sabre's `TimeSpan Start="MM-dd"`, a compact `yyyyMMdd`, a European
/// `dd/MM/yyyy` and a full `yyyy-MM-dd'T'HH:mm:ss` are all patterns.
/// Other letters are refused when the profile loads: `YYYY` (the year of
/// the week, wrong in the last days of December), `hh` (a 12-hour clock
/// without its AM/PM) and `DD` (the day of the year) are common mistakes.
public struct DatePattern: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String

    private static let letters: Set<Character> = ["y", "M", "d", "E", "H", "m", "s", "S", "X"]
    private static let mistakes: [Character: String] = [
        "Y": "YYYY is the year of the week; the calendar year is yyyy",
        "D": "D is the day of the year; the day of the month is dd",
        "h": "h is the 12-hour clock; the 24-hour clock is HH",
    ]

    public init(_ pattern: String) throws(PathSyntaxError) {
        guard !pattern.isEmpty else { throw PathSyntaxError("an empty date pattern; e.g. {today+30:yyyy-MM-dd}") }
        var quoted = false
        for character in pattern {
            if character == "'" {
                quoted.toggle()
            } else if !quoted, character.isLetter, !Self.letters.contains(character) {
                let hint =
                    Self.mistakes[character].map { ": \($0)" }
                    ?? "; the pattern letters are yyyy MM dd EEE HH mm ss SSS XXX, and text in 'quotes'"
                throw PathSyntaxError("the date pattern “\(pattern)” has the letter \(character)\(hint)")
            }
        }
        guard !quoted else { throw PathSyntaxError("the date pattern “\(pattern)” opens a quote it does not close") }
        self.pattern = pattern
    }

    /// The date written in the pattern, in UTC.
    public func format(_ date: Date) -> String {
        // A formatter is made for each use: DateFormatter is not Sendable, and a request writes a date or two.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }

    public var description: String { pattern }
}
