// The benchmarks' page tree: `total` pages over 20 levels (20 roots, 400 at level 2, the
// rest spread evenly over levels 3–20 under random parents of the level above), each
// with four text blocks. Written straight with pg (no model checks), ids in level order.
import pg from 'pg';

const MAX_DEPTH = 20;

export interface SeededTree {
  /** Slug paths (without the leading `/`) of a leaf at depth 20 and of its ancestors at depth 1 and 5. */
  paths: Record<1 | 5 | 20, string>;
  /** Ids of that leaf's chain, from the root down (20 ids). */
  chain: number[];
  total: number;
}

export async function seedPageTree(url: string, total: number): Promise<SeededTree> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const levelSizes = [20, 400];
    const rest = total - 420;
    for (let level = 3; level <= MAX_DEPTH; level++) levelSizes.push(Math.floor(rest / (MAX_DEPTH - 2)) + (level === MAX_DEPTH ? rest % (MAX_DEPTH - 2) : 0));
    let nextId = 1;
    let previous: number[] = [];
    const parentOf = new Map<number, number | null>();
    let random = 42;
    const rand = (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random % n;
    };
    const blocks = JSON.stringify([
      { type: 'heading', text: 'Présentation', level: 2 },
      { type: 'paragraph', text: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6) },
      { type: 'list', items: ['Premier point', 'Deuxième point', 'Troisième point'] },
      { type: 'paragraph', text: 'Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(4) },
    ]);
    for (const size of levelSizes) {
      const current: number[] = [];
      const rows: unknown[][] = [];
      for (let index = 0; index < size; index++) {
        const id = nextId++;
        const parent = previous.length ? previous[rand(previous.length)] : null;
        parentOf.set(id, parent);
        current.push(id);
        rows.push([id, parent, `Page ${id}`, `page-${id}`]);
      }
      for (let start = 0; start < rows.length; start += 5000) {
        const chunk = rows.slice(start, start + 5000);
        const values = chunk.map(
          (_, i) =>
            `($${i * 4 + 1}::int, $${i * 4 + 2}::int, $${i * 4 + 3}, $${i * 4 + 4}, $${chunk.length * 4 + 1}::jsonb, '{"description":"Une page du banc d’essai."}'::jsonb)`,
        );
        await client.query(`INSERT INTO app_pages (id, parent_id, title, slug, blocks, seo) VALUES ${values.join(', ')}`, [...chunk.flat(), blocks]);
      }
      previous = current;
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('app_pages', 'id'), (SELECT max(id) FROM app_pages))`);
    await client.query('VACUUM ANALYZE app_pages');
    // A leaf at depth 20 and its ancestors give the three paths.
    const chain: number[] = [];
    for (let id: number | null = previous[0]; id !== null; id = parentOf.get(id) ?? null) chain.unshift(id);
    const pathTo = (depth: number) =>
      chain
        .slice(0, depth)
        .map((id) => `page-${id}`)
        .join('/');
    const count = ((await client.query('SELECT count(*)::int AS n FROM app_pages')).rows[0] as { n: number }).n;
    console.log(`seeded ${count} pages, depth ${chain.length}`);
    return { paths: { 1: pathTo(1), 5: pathTo(5), 20: pathTo(20) }, chain, total: count };
  } finally {
    await client.end();
  }
}

/**
 * An old address of the depth-20 leaf, as a move of its root would have left it: a row
 * of app_page_redirects whose lookup walks the 20 levels up to compute the current path.
 * Returns that old path (without the leading `/`).
 */
export async function seedRedirect(url: string, tree: SeededTree): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const old = ['ancienne-rubrique', ...tree.paths[20].split('/').slice(1)].join('/');
    await client.query(`INSERT INTO app_page_redirects (path, page_id, kind) VALUES ($1, $2, 'automatic')`, [`/${old}`, tree.chain[tree.chain.length - 1]]);
    return old;
  } finally {
    await client.end();
  }
}
