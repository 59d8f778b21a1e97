extension JSONWSSignatures {
    /// The comment services: Liferay Screens' `screens.screenscomment` (its Comment List,
    /// Comment Add and Comment Display screenlets call these) and the portal's
    /// `comment.commentmanagerjsonws`, which Screens' Comment Display deletes through.
    ///
    /// Sources: liferay/liferay-screens `android/library/.../service/v70/ScreenscommentService.java`
    /// (the client; the portal side is `ScreensCommentServiceImpl` in
    /// `modules/apps/screens/screens-service`), and the Mobile SDK's
    /// `commentmanagerjsonws/CommentmanagerjsonwsService` of every 7.x catalogue.
    static let commentSignatures: [ServiceSignature] = [
        ServiceSignature(
            "/screens.screenscomment/get-comments",
            [.init("className", "String"), .init("classPK", "long"), .init("start", "int"), .init("end", "int")],
            versions: .v7_0 ... .v7_4, sources: [.screens70("ScreenscommentService")]),
        ServiceSignature(
            "/screens.screenscomment/get-comments-count",
            [.init("className", "String"), .init("classPK", "long")],
            versions: .v7_0 ... .v7_4, sources: [.screens70("ScreenscommentService")]),
        ServiceSignature(
            "/screens.screenscomment/get-comment",
            [.init("commentId", "long")],
            versions: .v7_0 ... .v7_4, sources: [.screens70("ScreenscommentService")]),
        ServiceSignature(
            "/screens.screenscomment/add-comment",
            [.init("className", "String"), .init("classPK", "long"), .init("body", "String")],
            versions: .v7_0 ... .v7_4, sources: [.screens70("ScreenscommentService")]),
        ServiceSignature(
            "/screens.screenscomment/update-comment",
            [.init("commentId", "long"), .init("body", "String")],
            versions: .v7_0 ... .v7_4, sources: [.screens70("ScreenscommentService")]),
        ServiceSignature(
            "/comment.commentmanagerjsonws/delete-comment",
            [.init("commentId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "commentmanagerjsonws/CommentmanagerjsonwsService")),
        ServiceSignature(
            "/comment.commentmanagerjsonws/get-comments",
            [.init("groupId", "long"), .init("className", "String"), .init("classPK", "long"), .init("start", "int"), .init("end", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "commentmanagerjsonws/CommentmanagerjsonwsService")),
        ServiceSignature(
            "/comment.commentmanagerjsonws/get-comments-count",
            [.init("groupId", "long"), .init("className", "String"), .init("classPK", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "commentmanagerjsonws/CommentmanagerjsonwsService")),
    ]
}
