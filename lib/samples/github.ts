/**
 * GitHub webhook payloads in the shape of octokit/webhooks `payload-examples/api.github.com`
 * (issues/opened, pull_request/*), with the long `*_url` lists trimmed. The delivery id and event name
 * travel in headers (X-GitHub-Delivery, X-GitHub-Event), not in the body.
 */

export interface GithubUserInput {
  login?: string;
  id?: number;
}

function user({ login = "Codertocat", id = 21031067 }: GithubUserInput = {}) {
  return {
    login,
    id,
    node_id: "MDQ6VXNlcjIxMDMxMDY3",
    avatar_url: `https://avatars1.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: "",
    url: `https://api.github.com/users/${login}`,
    html_url: `https://github.com/${login}`,
    type: "User",
    site_admin: false,
  };
}

export interface GithubRepositoryInput {
  id?: number;
  fullName?: string;
}

function repository({ id = 186853002, fullName = "Codertocat/Hello-World" }: GithubRepositoryInput = {}) {
  const [owner = "Codertocat", name = "Hello-World"] = fullName.split("/");
  return {
    id,
    node_id: "MDEwOlJlcG9zaXRvcnkxODY4NTMwMDI=",
    name,
    full_name: fullName,
    private: false,
    owner: user({ login: owner }),
    html_url: `https://github.com/${fullName}`,
    description: null,
    fork: false,
    url: `https://api.github.com/repos/${fullName}`,
    created_at: "2019-05-15T15:19:25Z",
    updated_at: "2019-05-15T15:19:27Z",
    pushed_at: "2019-05-15T15:20:13Z",
    git_url: `git://github.com/${fullName}.git`,
    ssh_url: `git@github.com:${fullName}.git`,
    clone_url: `https://github.com/${fullName}.git`,
    default_branch: "master",
    open_issues_count: 1,
    visibility: "public",
  };
}

export interface GithubIssuesOpenedInput {
  issueId?: number;
  number?: number;
  title?: string;
  body?: string;
  createdAt?: string;
  author?: GithubUserInput;
  repository?: GithubRepositoryInput;
}

/** Body of an `issues` delivery with action "opened". */
export function githubIssuesOpened(input: GithubIssuesOpenedInput = {}) {
  const repo = repository(input.repository);
  const number = input.number ?? 1;
  const createdAt = input.createdAt ?? "2019-05-15T15:20:18Z";
  const issueUrl = `${repo.url}/issues/${number}`;
  return {
    action: "opened",
    issue: {
      url: issueUrl,
      repository_url: repo.url,
      labels_url: `${issueUrl}/labels{/name}`,
      comments_url: `${issueUrl}/comments`,
      events_url: `${issueUrl}/events`,
      html_url: `${repo.html_url}/issues/${number}`,
      id: input.issueId ?? 444500041,
      node_id: "MDU6SXNzdWU0NDQ1MDAwNDE=",
      number,
      title: input.title ?? "Spelling error in the README file",
      user: user(input.author),
      labels: [
        {
          id: 1362934389,
          node_id: "MDU6TGFiZWwxMzYyOTM0Mzg5",
          url: `${repo.url}/labels/bug`,
          name: "bug",
          color: "d73a4a",
          default: true,
          description: "Something isn't working",
        },
      ],
      state: "open",
      locked: false,
      assignee: null,
      assignees: [],
      milestone: null,
      comments: 0,
      created_at: createdAt,
      updated_at: createdAt,
      closed_at: null,
      author_association: "OWNER",
      active_lock_reason: null,
      body: input.body ?? "It looks like you accidently spelled 'commit' with two 't's.",
      reactions: { url: `${issueUrl}/reactions`, total_count: 0, "+1": 0, "-1": 0, laugh: 0, hooray: 0 },
    },
    repository: repo,
    sender: user(input.author),
  };
}

export interface GithubPullRequestEventInput {
  action?: "opened" | "synchronize" | "closed" | "reopened" | "edited";
  pullRequestId?: number;
  number?: number;
  headSha?: string;
  merged?: boolean;
  updatedAt?: string;
  author?: GithubUserInput;
  repository?: GithubRepositoryInput;
}

/** Body of a `pull_request` delivery. */
export function githubPullRequestEvent(input: GithubPullRequestEventInput = {}) {
  const repo = repository(input.repository);
  const number = input.number ?? 2;
  const updatedAt = input.updatedAt ?? "2019-05-15T15:20:33Z";
  const author = user(input.author);
  const action = input.action ?? "opened";
  return {
    action,
    number,
    pull_request: {
      url: `${repo.url}/pulls/${number}`,
      id: input.pullRequestId ?? 279147437,
      node_id: "MDExOlB1bGxSZXF1ZXN0Mjc5MTQ3NDM3",
      html_url: `${repo.html_url}/pull/${number}`,
      number,
      state: action === "closed" ? "closed" : "open",
      locked: false,
      title: "Update the README with new information.",
      user: author,
      body: "This is a pretty simple change that we need to pull into master.",
      created_at: "2019-05-15T15:20:33Z",
      updated_at: updatedAt,
      closed_at: action === "closed" ? updatedAt : null,
      merged_at: input.merged ? updatedAt : null,
      merge_commit_sha: null,
      draft: false,
      head: {
        label: "Codertocat:changes",
        ref: "changes",
        sha: input.headSha ?? "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        user: author,
      },
      base: {
        label: "Codertocat:master",
        ref: "master",
        sha: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e",
        user: author,
      },
      author_association: "OWNER",
      merged: input.merged ?? false,
      mergeable: null,
      comments: 0,
      commits: 1,
      additions: 1,
      deletions: 1,
      changed_files: 1,
    },
    repository: repo,
    sender: author,
  };
}
