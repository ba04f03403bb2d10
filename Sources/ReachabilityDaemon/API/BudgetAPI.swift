import FoundationEssentials
import ReachabilityControl
import ReachabilityCore

/// `/v1/budgets`: the data budgets (``BudgetKeeper``), on the control socket only.
struct BudgetAPI: Sendable {
    let keeper: BudgetKeeper

    /// The answer for `request`, or nil when it is not a budget endpoint.
    func handle(_ request: ControlRequest) async -> ControlResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2, parts[0] == "v1", parts[1] == "budgets" else { return nil }
        switch parts.count {
        case 2:
            guard request.method == "GET" else { return QueueAPI.notAllowed(request, allow: "GET") }
            await keeper.refresh()
            let interfaces = keeper.matchingInterfaces()
            return QueueAPI.json(200, keeper.accounts().map { BudgetDocument($0, interfaces: interfaces[$0.budget.name] ?? []) })
        case 3:
            let name = parts[2]
            guard DataBudget.isValidName(name) else { return Self.badName(name) }
            switch request.method {
            case "GET":
                await keeper.refresh()
                guard let account = keeper.account(name) else { return QueueAPI.failure(404, "notFound", "no budget '\(name)'") }
                return QueueAPI.json(200, document(account))
            case "PUT": return await define(name, request)
            case "DELETE": return await change(.remove(name), status: 200)
            default: return QueueAPI.notAllowed(request, allow: "GET, PUT, DELETE")
            }
        case 4 where ["reset", "snooze"].contains(parts[3]):
            guard request.method == "POST" else { return QueueAPI.notAllowed(request, allow: "POST") }
            guard DataBudget.isValidName(parts[2]) else { return Self.badName(parts[2]) }
            return await change(parts[3] == "reset" ? .reset(parts[2]) : .snooze(parts[2]), status: 200)
        default:
            return nil
        }
    }

    private static func badName(_ name: String) -> ControlResponse {
        QueueAPI.failure(400, "badRequest", "'\(name.prefix(80))' is not a budget name: 1-64 characters of A-Z a-z 0-9 . _ - (not starting with '.')")
    }

    private func document(_ account: BudgetAccount) -> BudgetDocument {
        BudgetDocument(account, interfaces: keeper.matchingInterfaces()[account.budget.name] ?? [])
    }

    private func define(_ name: String, _ request: ControlRequest) async -> ControlResponse {
        let spec: BudgetSpec
        do {
            spec = try QueueJSON.decode(BudgetSpec.self, from: Data(request.body), rejectingUnknownFields: true)
        } catch let unknown as QueueJSON.UnknownField {
            return QueueAPI.failure(400, "badRequest", "\(unknown): not a field of a budget (misspelt?)")
        } catch {
            return QueueAPI.failure(400, "badRequest", "the budget is not valid JSON: \(QueueJSON.explain(error))")
        }
        let budget: DataBudget
        do throws(BudgetError) {
            budget = try spec.budget(named: name)
        } catch {
            return QueueAPI.failure(400, "badRequest", error.description)
        }
        let existed = keeper.account(name) != nil
        return await change(.define(budget), status: existed ? 200 : 201)
    }

    private func change(_ change: BudgetKeeper.Change, status: Int) async -> ControlResponse {
        do {
            return QueueAPI.json(status, document(try await keeper.apply(change)))
        } catch {
            return QueueAPI.error(error)
        }
    }
}
