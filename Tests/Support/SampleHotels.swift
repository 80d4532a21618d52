import Hotels

/// Hotels named by code with an addtime; newest first, as services list them.
public func hotels(_ codes: [(String, Int64)], name: String = "Hotel") -> [Hotel] {
    codes.map { Hotel(code: $0.0, name: "\(name) \($0.0)", logoURL: "http://logos.test/\($0.0).png", addtime: $0.1) }
}
