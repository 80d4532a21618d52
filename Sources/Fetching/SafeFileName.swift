import Crypto
import Foundation

/// A file or folder name made from text a service or a user chose (a hotel
/// code, a city): the text itself when it is a plain name; else its plain
/// characters and a hash of the whole. It never names a path outside its
/// folder (`../x`, `a/b`) or a hidden file.
public enum SafeFileName {
    public static func base(for text: String) -> String {
        func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
        }
        let plain = text.unicodeScalars.allSatisfy { isLetterOrDigit($0) || "-_.".unicodeScalars.contains($0) }
        if plain, !text.isEmpty, !text.hasPrefix("."), text.utf8.count <= 100 { return text }
        let kept = String(text.unicodeScalars.prefix(60).map { isLetterOrDigit($0) ? Character($0) : "_" })
        let hash = SHA256.hash(data: Data(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\(kept)-\(hash)"
    }
}
