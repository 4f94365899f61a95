// "Fund with test XLM": in the sandbox, friendbot creates the settlement wallet's account on the test
// network, as the README's `curl /_sim/friendbot` did, so that a first test payment can arrive. The
// screen that shows it reads the wallet again after the mutation (graphql.ts).
import { useMutation } from "@urql/preact";
import { Button, Notice } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";

const FUND = graphql(`mutation FundSettlementWallet { fundSettlementWalletWithTestLumens }`);

export function FundTestWallet() {
  const [result, fund] = useMutation(FUND);
  return (
    <div class="fund-test-wallet">
      <Button
        variant="primary"
        disabled={result.fetching}
        onClick={() => void fund({})}
      >
        {result.fetching ? "Funding…" : "Fund with test XLM"}
      </Button>
      <Notice>{errorText(result.error)}</Notice>
    </div>
  );
}
