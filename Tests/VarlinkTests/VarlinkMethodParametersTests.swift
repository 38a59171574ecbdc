import Testing

@testable import VarlinkServer

@Suite("VarlinkMethodParameters: the parameter names of each method, read from a definition")
struct VarlinkMethodParametersTests {
    @Test("methods, optional and nested types, enums, and comments that look like methods")
    func readsTheIDL() {
        let definition = """
            # An interface. method Fake(x: int) in a comment is no method.
            interface org.example.idl

            type Point (x: float, y: float)

            # Returns things.
            method Plain() -> (a: int)
            method Several(a: string, b: ?int, c: []string, d: [string]?bool) -> ()
            method Nested(
              where: (x: float, y: (z: int, w: int)),   # an inner struct
              mode: (fast, slow),
              point: Point
            ) -> (moved: bool)
            method_like(a: int) -> ()
            error Failed (reason: string)
            """
        let parameters = VarlinkMethodParameters(definition: definition)
        #expect(parameters.parameterNames(of: "Plain") == [])
        #expect(parameters.parameterNames(of: "Several") == ["a", "b", "c", "d"])
        #expect(parameters.parameterNames(of: "Nested") == ["where", "mode", "point"])
        #expect(parameters.parameterNames(of: "Fake") == nil, "a comment declares nothing")
        #expect(parameters.parameterNames(of: "Failed") == nil, "an error is no method")
        #expect(parameters.parameterNames(of: "Missing") == nil)
    }

    @Test("org.varlink.service's own definition")
    func serviceDefinition() {
        let parameters = VarlinkMethodParameters(definition: VarlinkServer.serviceDefinition)
        #expect(parameters.parameterNames(of: "GetInfo") == [])
        #expect(parameters.parameterNames(of: "GetInterfaceDescription") == ["interface"])
    }
}
