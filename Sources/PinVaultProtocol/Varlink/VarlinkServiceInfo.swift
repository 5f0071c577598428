/// The reply of `org.varlink.service.GetInfo`.
public struct VarlinkServiceInfo: Equatable, Sendable {
    /// Who makes the service.
    public var vendor: String
    /// The product name.
    public var product: String
    /// The product version.
    public var version: String
    /// Where to learn more; empty when the service names no such page.
    public var url: String
    /// The interfaces served, `org.varlink.service` included.
    public var interfaces: [String]

    /// PinVault's answer: vendor `PinVault`, product `pinvaultd`, the given version, both
    /// interfaces, and an empty url: PinVault has no public home page to name, and
    /// org.varlink.service declares `url: string` (not `?string`), which systemd's
    /// varlinkctl and the Python varlink package both require, so the field is sent
    /// empty rather than left out or filled with an invented address.
    public static func pinVault(version: String, url: String = "") -> VarlinkServiceInfo {
        VarlinkServiceInfo(
            vendor: "PinVault",
            product: "pinvaultd",
            version: version,
            url: url,
            interfaces: [VarlinkServiceInterface.name, VaultInterface.name]
        )
    }

    /// Each field as given.
    public init(vendor: String, product: String, version: String, url: String, interfaces: [String]) {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
        self.interfaces = interfaces
    }

    /// Decodes a GetInfo reply's parameters.
    public init(from parameters: ParameterDecoder) throws(ParameterError) {
        let text = 0...1024
        vendor = try parameters.string("vendor", required: true, bytes: text) ?? ""
        product = try parameters.string("product", required: true, bytes: text) ?? ""
        version = try parameters.string("version", required: true, bytes: text) ?? ""
        url = try parameters.string("url", required: true, bytes: text) ?? ""
        interfaces = try parameters.strings("interfaces", required: true, maxCount: 1024, bytes: 1...255) ?? []
    }

    /// Writes the reply's parameters.
    public func writeParameters(_ object: inout JSONObjectWriter) {
        object.field("vendor", vendor)
        object.field("product", product)
        object.field("version", version)
        object.field("url", url)
        object.field("interfaces", strings: interfaces)
    }
}
