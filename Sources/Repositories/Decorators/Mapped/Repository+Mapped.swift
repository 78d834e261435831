extension Repository {
    /// This repository of stored records seen as a repository of domain entities,
    /// converted with `toDomain` on reads and `toStored` on writes.
    ///
    /// See ``MappedRepository`` for what each conversion failure does.
    public func mapped<Domain: Identifiable & Sendable>(
        toDomain: @escaping @Sendable (Entity) throws -> Domain,
        toStored: @escaping @Sendable (Domain) throws -> Entity
    ) -> MappedRepository<Self, Domain> where Domain.ID == ID {
        MappedRepository(self, toDomain: toDomain, toStored: toStored)
    }
}
